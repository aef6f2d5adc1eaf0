import Hummingbird
import StratusModel
import StratusStore

/// `users/caller` and the older `users/current` (`ckws-protocol.md` §9).
struct UsersController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.get("users/caller", use: caller)
        group.post("users/caller", use: caller)
        group.get("users/current", use: current)
        group.post("users/current", use: current)
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
        var writer = JSONWriter()
        writer.beginObject()
        Self.writeIdentityKeys(account, to: &writer)
        writer.key("users")
        writer.beginArray()
        writer.arrayElement()
        writer.beginObject()
        Self.writeIdentityKeys(account, to: &writer)
        writer.endObject()
        writer.endArray()
        writer.endObject()
        return call.respond(writer)
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

    static func writeIdentityKeys(_ account: Account, to writer: inout JSONWriter) {
        writer.key("lookupInfo")
        writer.beginObject()
        writer.key("emailAddress")
        writer.string(account.emailAddress)
        writer.key("userRecordName")
        writer.string(account.userRecordName)
        writer.endObject()
        writer.key("nameComponents")
        writer.beginObject()
        if let given = account.givenName {
            writer.key("givenName")
            writer.string(given)
        }
        if let family = account.familyName {
            writer.key("familyName")
            writer.string(family)
        }
        writer.endObject()
        writer.key("userRecordName")
        writer.string(account.userRecordName)
    }
}
