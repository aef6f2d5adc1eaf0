import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `users/caller`, `users/discover`, and the older `users/current` and `users/lookup/email|id`
/// (`docs/protocol.md#users`). Other users are found only when they made themselves discoverable.
struct UsersController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.get("users/caller", use: caller)
        group.post("users/caller", use: caller)
        group.get("users/current", use: current)
        group.post("users/current", use: current)
        group.post("users/discover", use: discover)
        group.get("users/discover", use: discoverContacts)
        group.post("users/lookup/email", use: lookupByEmail)
        group.post("users/lookup/id", use: lookupByID)
    }

    /// `{users: [identity]}` for the lookup infos that name a discoverable user; the others are left out.
    @Sendable func discover(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        _ = try call.requireUser()
        let body = try await call.decode(DiscoverUsersRequest.self, from: request)
        let found = try await discoverable(body.lookupInfos, call: call)
        return call.respond(UsersResponse(users: found.map { match in
            UserIdentityEntry(userRecordName: match.account.userRecordName, nameComponents: Self.nameComponents(of: match.account), lookupInfo: match.info)
        }))
    }

    /// `GET users/discover`: in CloudKit, the caller's address-book contacts who use the app. Stratus keeps no
    /// address books, so the answer names nobody; clients find people with `POST users/discover`.
    @Sendable func discoverContacts(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        _ = try call.requireUser()
        return call.respond(UsersResponse(users: []))
    }

    @Sendable func lookupByEmail(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await legacyLookup(request, context, showingEmail: true)
    }

    /// As the reference says, the user dictionaries of `users/lookup/id` leave out the email address: a
    /// record name should not reveal one.
    @Sendable func lookupByID(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await legacyLookup(request, context, showingEmail: false)
    }

    /// `{users: [{userRecordName, firstName, lastName, emailAddress?}]}`, the older user dictionary.
    private func legacyLookup(_ request: Request, _ context: StratusRequestContext, showingEmail: Bool) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        _ = try call.requireUser()
        let body = try await call.decode(LookupUsersRequest.self, from: request)
        let found = try await discoverable(body.users, call: call)
        return call.respond(JSONWriter.object { writer in
            writer.array("users", found) { writer, match in
                writer.beginObject()
                if showingEmail, let email = match.account.emailAddress {
                    writer.key("emailAddress")
                    writer.string(email)
                }
                writer.key("firstName")
                if let given = match.account.givenName { writer.string(given) } else { writer.null() }
                writer.key("lastName")
                if let family = match.account.familyName { writer.string(family) } else { writer.null() }
                writer.key("userRecordName")
                writer.string(match.account.userRecordName)
                writer.endObject()
            }
        })
    }

    /// The discoverable accounts that lookup infos name, each with the info that found it.
    private func discoverable(_ infos: [UserLookupInfo], call: DatabaseCall) async throws -> [(info: UserLookupInfo, account: Account)] {
        guard infos.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a lookup may name at most \(RecordLimits.maximumResults) users")
        }
        let container = call.authentication.container.id
        var found: [(UserLookupInfo, Account)] = []
        for info in infos {
            var account: Account?
            if let email = info.emailAddress {
                account = try await server.store.account(containerID: container, emailAddress: email.trimmingCharacters(in: .whitespaces).lowercased())
            } else if let phone = info.phoneNumber {
                account = try await server.store.account(containerID: container, phoneNumber: try PhoneNumber.normalized(phone))
            } else if let name = info.userRecordName {
                account = try await server.store.account(containerID: container, userRecordName: name)
            } else {
                throw APIError.badRequest("each lookup info needs emailAddress, phoneNumber or userRecordName")
            }
            if let account, account.isDiscoverable {
                found.append((info, account))
            }
        }
        return found
    }

    private func account(_ call: DatabaseCall) async throws -> Account {
        let user = try call.requireUser()
        guard let account = try await server.store.account(containerID: call.authentication.container.id, userRecordName: user) else {
            throw APIError(.authenticationFailed, "the signed-in account no longer exists")
        }
        return account
    }

    /// The caller's identity, both as `users: [identity]` (the reference) and flat (what some clients read).
    @Sendable func caller(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let account = try await account(call)
        let lookupInfo = UserLookupInfo(emailAddress: account.isDeveloper ? nil : account.emailAddress, userRecordName: account.userRecordName)
        return call.respond(CallerResponse(identity: UserIdentityEntry(
            userRecordName: account.userRecordName, nameComponents: Self.nameComponents(of: account), lookupInfo: lookupInfo
        )))
    }

    @Sendable func current(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let account = try await account(call)
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("firstName")
        if let given = account.givenName { writer.string(given) } else { writer.null() }
        writer.key("lastName")
        if let family = account.familyName { writer.string(family) } else { writer.null() }
        writer.key("userRecordName")
        writer.string(account.userRecordName)
        writer.endObject()
        return call.respond(writer)
    }

    static func nameComponents(of account: Account) -> NameComponents {
        NameComponents(givenName: account.givenName, familyName: account.familyName)
    }
}
