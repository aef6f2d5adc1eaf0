import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// People, not one key: operator accounts (made by an administrator, each with a password and an authenticator
/// app, a role per container), and the audit log of admin actions.
extension AdminController {
    func registerPeopleRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post("operators", .administrator, use: createOperator)
        group.get("operators", .administrator, use: listOperators)
        group.put("operators/:operator", .administrator, use: updateOperator)
        group.delete("operators/:operator", .administrator, use: deleteOperator)
        group.post("operators/:operator/reset", .administrator, use: resetOperator)
        group.post("operators/enrolment", use: beginEnrolment)
        group.post("operators/enrolment/confirm", use: confirmEnrolment)
        group.get("audit", .anyOperator, use: auditLog)
    }

    /// What an administrator sends to make or change an operator.
    struct OperatorBody: Decodable {
        var emailAddress: String?
        var name: String?
        var password: String?
        var administrator: Bool?
        var disabled: Bool?
        /// Container ID → `owner`, `developer` or `viewer`; replaces every role when present.
        var roles: [String: OperatorRole]?
    }

    /// `POST /admin/1/operators` `{emailAddress, password, name?, administrator?, roles?}` (administrators): the new
    /// operator, who sets up an authenticator app (`operators/enrolment`) before signing in.
    @Sendable func createOperator(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(OperatorBody.self, from: request, limit: RequestLimits.jsonBody)
        let email = try EmailAddress.normalized(body.emailAddress ?? "")
        let password = try Self.checkedPassword(body.password)
        for containerID in (body.roles ?? [:]).keys { _ = try await server.authenticator.container(containerID) }
        let account = OperatorAccount(
            id: "op_" + Tokens.randomHex(bytes: 12), emailAddress: email, name: body.name ?? "",
            passwordHash: try server.passwordHasher.hash(password), isAdministrator: body.administrator ?? false, createdAt: ServerClock.now()
        )
        try await server.store.createOperator(account, roles: body.roles ?? [:])
        return JSONResponse.make(Self.operatorJSON(account, roles: body.roles ?? [:]), status: .created)
    }

    /// `GET /admin/1/operators` (administrators): every operator with their roles; never a password or secret.
    @Sendable func listOperators(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var listed: [(OperatorAccount, [String: OperatorRole])] = []
        for account in try await server.store.operatorAccounts() {
            listed.append((account, try await server.store.operatorRoles(operatorID: account.id)))
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("operators", listed) { writer, item in Self.write(item.0, roles: item.1, to: &writer) }
        })
    }

    /// `PUT /admin/1/operators/{id}` `{name?, administrator?, disabled?, roles?}` (administrators). Disabling an
    /// operator ends their sessions on every node at once.
    @Sendable func updateOperator(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        let body = try await RequestBody.decode(OperatorBody.self, from: request, limit: RequestLimits.jsonBody)
        var account = try await operatorAccount(try context.parameters.require("operator"))
        if case .person(let me, _) = actor, me.id == account.id, body.disabled == true || body.administrator == false {
            throw APIError.badRequest("an administrator cannot disable themselves or give up being one")
        }
        if let name = body.name { account.name = name }
        if let administrator = body.administrator { account.isAdministrator = administrator }
        if let disabled = body.disabled { account.isDisabled = disabled }
        try await server.store.saveOperator(account)
        if let roles = body.roles {
            for containerID in roles.keys { _ = try await server.authenticator.container(containerID) }
            try await server.store.setOperatorRoles(roles, operatorID: account.id)
        }
        if account.isDisabled { try await endSessions(of: account) }
        return JSONResponse.make(Self.operatorJSON(account, roles: try await server.store.operatorRoles(operatorID: account.id)))
    }

    /// `DELETE /admin/1/operators/{id}` (administrators): the account, its roles and its sessions.
    @Sendable func deleteOperator(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        let account = try await operatorAccount(try context.parameters.require("operator"))
        if case .person(let me, _) = actor, me.id == account.id { throw APIError.badRequest("an administrator cannot delete themselves") }
        try await server.store.deleteOperator(id: account.id)
        try await endSessions(of: account)
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `POST /admin/1/operators/{id}/reset` `{password}` (administrators), for someone who lost their password or
    /// authenticator: a new password, no authenticator (they set one up again), every session ended.
    @Sendable func resetOperator(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(OperatorBody.self, from: request, limit: RequestLimits.jsonBody)
        var account = try await operatorAccount(try context.parameters.require("operator"))
        account.passwordHash = try server.passwordHasher.hash(try Self.checkedPassword(body.password))
        account.sealedTOTPSecret = nil
        account.isTOTPEnabled = false
        try await server.store.saveOperator(account)
        try await endSessions(of: account)
        return JSONResponse.make(Self.operatorJSON(account, roles: try await server.store.operatorRoles(operatorID: account.id)))
    }

    /// `POST /admin/1/operators/enrolment` `{emailAddress, password}`: an operator without an authenticator app gets a
    /// new secret to add to one: `{secret, otpauthURI}`. Sign-in needs it confirmed.
    @Sendable func beginEnrolment(_ request: Request, context: StratusRequestContext) async throws -> Response {
        struct Body: Decodable { var emailAddress: String; var password: String }
        let body = try await RequestBody.decode(Body.self, from: request, limit: RequestLimits.formBody)
        var account = try await checkPassword(body.emailAddress, body.password, request, context)
        guard !account.isTOTPEnabled else {
            throw APIError(.accessDenied, "this operator already has an authenticator app; an administrator can reset it")
        }
        let secret = (0..<20).map { _ in UInt8.random(in: 0...255) }
        account.sealedTOTPSecret = try server.secondFactors.seal(secret)
        try await server.store.saveOperator(account)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("otpauthURI")
            writer.string(TOTP.uri(secret: secret, issuer: "Stratus", account: account.emailAddress))
            writer.key("secret")
            writer.string(Base32.encode(secret))
        }, headers: [.cacheControl: "no-store"])
    }

    /// `POST /admin/1/operators/enrolment/confirm` `{emailAddress, password, code}`: the authenticator app's first code
    /// turns it on.
    @Sendable func confirmEnrolment(_ request: Request, context: StratusRequestContext) async throws -> Response {
        struct Body: Decodable { var emailAddress: String; var password: String; var code: String }
        let body = try await RequestBody.decode(Body.self, from: request, limit: RequestLimits.formBody)
        var account = try await checkPassword(body.emailAddress, body.password, request, context)
        guard !account.isTOTPEnabled, let sealed = account.sealedTOTPSecret, let secret = server.secondFactors.open(sealed) else {
            throw APIError(.accessDenied, "start setting up an authenticator app with operators/enrolment first")
        }
        guard let step = TOTP.matchingStep(body.code, secret: secret), try await server.store.useOperatorTOTPStep(step, operatorID: account.id) else {
            throw APIError(.authenticationFailed, "that is not the authenticator app's current code")
        }
        account.isTOTPEnabled = true
        try await server.store.saveOperator(account)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("totpEnabled")
            writer.bool(true)
        })
    }

    /// `GET /admin/1/audit?container=&actor=&before=&limit=`: admin actions, newest first, each `{id, time, actor,
    /// containerID?, action, status, address}`. Operators who are not administrators see their containers' only.
    @Sendable func auditLog(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        let query = request.uri.queryParameters
        let containerID = query["container"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        if let containerID {
            try AdminAccess.require(.viewer, in: containerID, of: actor)
        } else if !actor.isAdministrator {
            throw APIError.badRequest("name a container: only administrators see every container's actions")
        }
        let limit = try Self.integer(query["limit"].map(String.init), named: "limit", default: 100, range: 1...1000)
        let entries = try await server.store.auditLog(
            containerID: containerID, actor: query["actor"].map(String.init).flatMap { $0.isEmpty ? nil : $0 },
            beforeID: query["before"].map(String.init), limit: limit + 1
        )
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("entries", Array(entries.prefix(limit))) { writer, entry in
                writer.beginObject()
                writer.key("action")
                writer.string(entry.action)
                writer.key("actor")
                writer.string(entry.actor)
                writer.key("address")
                writer.string(entry.address)
                if let container = entry.containerID {
                    writer.key("containerID")
                    writer.string(container)
                }
                writer.key("id")
                writer.string(entry.id)
                writer.key("status")
                writer.integer(Int64(entry.status))
                writer.key("time")
                writer.integer(entry.time)
                writer.endObject()
            }
            writer.key("moreComing")
            writer.bool(entries.count > limit)
        })
    }

    /// The operator whose address and password these are, not disabled.
    /// - Throws: `AUTHENTICATION_FAILED` (the same for an unknown address), `THROTTLED` after repeated failures.
    func checkPassword(_ email: String, _ password: String, _ request: Request, _ context: StratusRequestContext) async throws -> OperatorAccount {
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        let throttleKey = "operator:" + email.lowercased()
        if let retryAfter = try await server.signInThrottle.retryAfter(account: throttleKey, address: address) {
            throw APIError(.throttled, "too many failed sign-ins from this address; try again later", retryAfter: retryAfter)
        }
        let account = try await server.store.operatorAccount(emailAddress: email)
        // An unknown address costs the same time as a wrong password.
        let matches = server.passwordHasher.verify(password, against: account?.passwordHash ?? server.decoyPasswordHash)
        guard let account, matches, !account.isDisabled else {
            try await server.signInThrottle.recordFailure(account: throttleKey, address: address)
            throw APIError(.authenticationFailed, "the address or password is wrong, or the operator is disabled")
        }
        try await server.signInThrottle.recordSuccess(account: throttleKey, address: address)
        return account
    }

    private func operatorAccount(_ id: String) async throws -> OperatorAccount {
        guard let account = try await server.store.operatorAccount(id: id) else { throw APIError(.notFound, "no operator \(id)") }
        return account
    }

    private func endSessions(of account: OperatorAccount) async throws {
        _ = try await server.store.endSessions(
            containerID: ConsoleSessions.sessionContainerID, userRecordName: ConsoleSessions.sessionUser(ofOperator: account.id), keeping: nil
        )
    }

    /// A password for an operator (``PasswordPolicy/operators``).
    private static func checkedPassword(_ password: String?) throws -> String {
        let password = password ?? ""
        if let refusal = PasswordPolicy.operators.refusal(of: password) { throw APIError.badRequest("password \(refusal)") }
        return password
    }

    private static func operatorJSON(_ account: OperatorAccount, roles: [String: OperatorRole]) -> JSONWriter {
        var writer = JSONWriter()
        write(account, roles: roles, to: &writer)
        return writer
    }

    /// An operator as the API shows them: never their password or authenticator secret.
    private static func write(_ account: OperatorAccount, roles: [String: OperatorRole], to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("administrator")
        writer.bool(account.isAdministrator)
        writer.key("created")
        writer.integer(account.createdAt)
        writer.key("disabled")
        writer.bool(account.isDisabled)
        writer.key("emailAddress")
        writer.string(account.emailAddress)
        writer.key("id")
        writer.string(account.id)
        writer.key("name")
        writer.string(account.name)
        writer.key("roles")
        writer.beginObject()
        for container in roles.keys.sorted() {
            writer.key(container)
            writer.string(roles[container]?.rawValue ?? "")
        }
        writer.endObject()
        writer.key("totpEnabled")
        writer.bool(account.isTOTPEnabled)
        writer.endObject()
    }
}
