import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// What `stratus import` and `stratus export` work through: records saved with the names, stamps and short GUIDs
/// they had elsewhere, and the progress of imports and exports, kept for the console.
extension AdminController {
    func registerImportRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post(":container/:environment/records/import", .developer, use: importRecords)
        group.put(":container/transfers/:transfer", .owner, use: saveTransfer)
        group.get(":container/transfers", .viewer, use: listTransfers)
    }

    /// `PUT /admin/1/{container}/transfers/{id}` with a ``TransferStatus``: records how an import or export is
    /// going (the container and id are the path's; the time is the server's).
    @Sendable func saveTransfer(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        var status = try await RequestBody.decode(TransferStatus.self, from: request, limit: RequestLimits.jsonBody)
        status.id = try context.parameters.require("transfer")
        guard RecordNames.isValidName(status.id) else { throw APIError.badRequest("'\(status.id)' is not a valid transfer id") }
        status.containerID = container.id
        status.updatedAt = ServerClock.now()
        try await server.store.saveTransfer(status)
        return try JSONResponse.make(encoding: status)
    }

    /// `GET /admin/1/{container}/transfers`: ``TransfersResponse``, the most recently updated first.
    @Sendable func listTransfers(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        return try JSONResponse.make(encoding: TransfersResponse(transfers: try await server.store.transfers(containerID: container.id)))
    }

    /// `POST /admin/1/{container}/{environment}/records/import` with ``ImportRecordsRequest``: saves each record in
    /// the zone named (the public database's default zone unless told otherwise), replacing one of the same name,
    /// with its stamps and short GUID as sent. Asset values carry receipts of files uploaded first (`assets/upload`,
    /// which the admin key may call), or the checksum of a file the record holds already. A share record's
    /// participants who had accepted are accepted again. Answers `{records: [...]}` as `records/modify` does.
    @Sendable func importRecords(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let body = try await RequestBody.decode(ImportRecordsRequest.self, from: request, limit: server.configuration.maximumRequestBytes)
        guard body.records.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("an import request may carry at most \(RecordLimits.maximumOperations) records, not \(body.records.count)")
        }
        let (zone, caller) = try await Self.importZone(body, container: container.id, environment: environment, store: server.store)
        var seen = Set<String>()
        let operations = try body.records.enumerated().map { index, record in
            guard RecordNames.isValidName(record.recordName), RecordNames.isValidName(record.recordType) else {
                throw APIError.badRequest("records[\(index)] needs a valid recordName and recordType")
            }
            guard seen.insert(record.recordName).inserted else {
                throw APIError.badRequest("record \(record.recordName) appears more than once; send each record once")
            }
            return RecordOperation(
                type: .forceReplace, recordName: record.recordName, recordType: record.recordType, fields: record.fields,
                parent: record.parent.map { .set($0) } ?? .unchanged, share: record.share.map(Self.shareChange),
                imported: ImportedMetadata(created: record.created, modified: record.modified, shortGUID: record.shortGUID)
            )
        }
        let results = operations.isEmpty ? [] : try await server.store.modifyRecords(RecordBatch(
            zone: zone, operations: operations, atomic: false, caller: caller, timestamp: ServerClock.now()
        ))
        for (record, result) in zip(body.records, results) {
            guard let share = record.share, case .saved(let saved) = result, let guid = saved.shareDetails?.shortGUID else { continue }
            try await acceptAgain(share, shortGUID: guid, container: container.id)
        }
        var writer = JSONWriter(capacity: 512 * max(1, results.count))
        RecordsResponse.write(results, to: &writer) { writer, result in
            switch result {
            case .saved(let record): record.write(to: &writer, rendering: RecordRendering())
            case .deleted(let deletion): deletion.write(to: &writer)
            case .failed(let failure): ResultWriter.writeFailure(failure, rendering: RecordRendering(), to: &writer)
            }
        }
        return JSONResponse.make(writer)
    }

    /// The zone an import writes to, and who writes: an operator with every permission, as the owner in a
    /// private database.
    private static func importZone(
        _ body: ImportRecordsRequest, container: String, environment: StratusModel.Environment, store: any Store
    ) async throws -> (ZoneRef, Caller) {
        let zoneName = body.zoneName ?? ZoneID.defaultZoneName
        switch body.database ?? .public {
        case .public:
            guard zoneName == ZoneID.defaultZoneName else { throw APIError.badRequest("the public database has only the zone \(ZoneID.defaultZoneName)") }
            let caller = Caller(userRecordName: DatabaseCall.consoleUser, deviceID: "import", hasAllPermissions: true)
            return (DatabaseRef.publicDatabase(container, environment).zone(zoneName), caller)
        case .private:
            guard let owner = body.ownerRecordName, try await store.account(containerID: container, userRecordName: owner) != nil else {
                throw APIError.badRequest("a private import names the owner (ownerRecordName) of an account of \(container)")
            }
            let caller = Caller(userRecordName: owner, deviceID: "import", hasAllPermissions: true)
            return (DatabaseRef.privateDatabase(container, environment, owner: owner).zone(zoneName), caller)
        case .shared:
            throw APIError.badRequest("import a shared zone into its owner's private database")
        }
    }

    private static func shareChange(_ share: ImportedShare) -> ShareChange {
        ShareChange(
            rootRecordName: share.rootRecordName, publicPermission: share.publicPermission,
            participants: share.participants.filter { !$0.throughLink }.compactMap { participant in
                let lookup: ParticipantLookup? = participant.userRecordName.map { .userRecordName($0) }
                    ?? participant.emailAddress.map { .emailAddress($0) } ?? participant.phoneNumber.map { .phoneNumber($0) }
                return lookup.map { ParticipantChange(lookup: $0, permission: participant.permission) }
            }
        )
    }

    /// Accepts a share again for each participant who had accepted it and has an account here.
    private func acceptAgain(_ share: ImportedShare, shortGUID: String, container: String) async throws {
        for participant in share.participants where participant.accepted {
            guard let name = participant.userRecordName, let account = try await server.store.account(containerID: container, userRecordName: name) else {
                continue
            }
            _ = try await server.store.acceptShare(
                shortGUID: shortGUID, user: ShareUser(userRecordName: name, emailAddress: account.emailAddress, phoneNumber: account.phoneNumber)
            )
        }
    }
}

/// Accounts in and out of archives (`stratus export`, `stratus import archive`).
extension AdminController {
    func registerAccountTransferRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/accounts", .viewer, use: listAccounts)
        group.post(":container/accounts/import", .owner, use: importAccounts)
    }

    /// `GET /admin/1/{container}/accounts?offset=&limit=&secrets=true`: ``AccountEntries`` by email address,
    /// with password hashes only when `secrets=true`.
    @Sendable func listAccounts(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let query = request.uri.queryParameters
        let offset = max(0, query["offset"].flatMap { Int(String($0)) } ?? 0)
        let limit = min(1000, max(1, query["limit"].flatMap { Int(String($0)) } ?? 200))
        let secrets = query["secrets"] == "true"
        let page = try await server.store.accounts(containerID: container.id, matching: nil, offset: offset, limit: limit + 1)
        var entries: [AccountEntry] = []
        for account in page.prefix(limit) {
            var roles: [String: [String]] = [:]
            for environment in StratusModel.Environment.allCases {
                let held = try await server.store.roles(containerID: container.id, environment: environment, userRecordName: account.userRecordName)
                if !held.isEmpty { roles[environment.rawValue] = held.sorted() }
            }
            let passkeys = secrets ? try await server.store.passkeys(containerID: container.id, userRecordName: account.userRecordName) : []
            let identities = secrets ? try await server.store.identities(containerID: container.id, userRecordName: account.userRecordName) : []
            entries.append(AccountEntry(
                userRecordName: account.userRecordName, emailAddress: account.emailAddress, phoneNumber: account.phoneNumber,
                givenName: account.givenName, familyName: account.familyName, discoverable: account.isDiscoverable,
                createdAt: account.createdAt, passwordHash: secrets ? account.passwordHash : nil, roles: roles, emailVerified: account.isEmailVerified,
                passkeys: passkeys.isEmpty ? nil : passkeys.map { passkey in
                    PasskeyArchiveEntry(
                        credentialID: passkey.credentialID, publicKey: passkey.publicKey, signCount: passkey.signCount, name: passkey.name,
                        backedUp: passkey.isBackedUp, createdAt: passkey.createdAt
                    )
                },
                anonymous: account.isAnonymous ? true : nil,
                identities: identities.isEmpty ? nil : identities.map { identity in
                    IdentityArchiveEntry(
                        provider: identity.provider, subject: identity.subject, emailAddress: identity.emailAddress,
                        emailVerified: identity.isEmailVerified, privateEmail: identity.isPrivateEmail, createdAt: identity.createdAt
                    )
                }
            ))
        }
        return try JSONResponse.make(encoding: AccountEntries(accounts: entries, moreComing: page.count > limit))
    }

    /// `POST /admin/1/{container}/accounts/import` with `{accounts: [AccountEntry]}`: creates each account that
    /// is not there yet (by user record name), with its `Users` records, and gives it its roles (defined in the
    /// schema, which is imported first), with its passkeys; one without a password hash or passkey signs in only
    /// with a mailed code until it sets a password. Answers `{"created": N}`.
    @Sendable func importAccounts(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        struct Body: Decodable { var accounts: [AccountEntry] }
        let body = try await RequestBody.decode(Body.self, from: request, limit: server.configuration.maximumRequestBytes)
        var created = 0
        for entry in body.accounts {
            guard RecordNames.isValidName(entry.userRecordName), entry.userRecordName.hasPrefix("_") else {
                throw APIError.badRequest("'\(entry.userRecordName)' is not a user record name")
            }
            if try await server.store.account(containerID: container.id, userRecordName: entry.userRecordName) == nil {
                let passkeys = (entry.passkeys ?? []).map { passkey in
                    Passkey(
                        containerID: container.id, credentialID: passkey.credentialID, userRecordName: entry.userRecordName, publicKey: passkey.publicKey,
                        signCount: passkey.signCount, name: passkey.name, isBackedUp: passkey.backedUp, createdAt: passkey.createdAt
                    )
                }
                try await server.store.createAccount(
                    Account(
                        containerID: container.id, userRecordName: entry.userRecordName, emailAddress: entry.emailAddress?.lowercased(),
                        passwordHash: entry.passwordHash ?? "", givenName: entry.givenName, familyName: entry.familyName,
                        phoneNumber: entry.phoneNumber, isDiscoverable: entry.discoverable, isEmailVerified: entry.emailVerified ?? false,
                        isAnonymous: entry.anonymous ?? false, createdAt: entry.createdAt
                    ),
                    passkey: passkeys.first
                )
                for passkey in passkeys.dropFirst() { try await server.store.addPasskey(passkey) }
                for identity in entry.identities ?? [] {
                    try await server.store.addIdentity(AccountIdentity(
                        containerID: container.id, provider: identity.provider, subject: identity.subject, userRecordName: entry.userRecordName,
                        emailAddress: identity.emailAddress, isEmailVerified: identity.emailVerified, isPrivateEmail: identity.privateEmail,
                        createdAt: identity.createdAt
                    ))
                }
                created += 1
            }
            for (name, roles) in entry.roles {
                guard let environment = StratusModel.Environment(rawValue: name) else { throw APIError.badRequest("no environment \(name)") }
                _ = try await AdminOperations.setRoles(roles, of: entry.userRecordName, containerID: container.id, environment: environment, store: server.store)
            }
        }
        return JSONResponse.make(JSONWriter.object { writer in writer.member("created", Int64(created)) })
    }
}
