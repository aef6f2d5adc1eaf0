import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `tokens/create` and `tokens/register` (`docs/protocol.md#push-tokens-and-the-web-courier`), under both `/database/1/...` and
/// `/device/1/...`: a web courier queue on this server for the signed-in user's notifications.
struct TokensController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.post("tokens/create", use: create)
        group.post("tokens/register", use: registerToken)
    }

    struct CreateRequest: Decodable {
        var apnsEnvironment: String?
    }

    struct RegisterRequest: Decodable {
        var apnsEnvironment: String?
        var apnsToken: String
    }

    /// Answers `{apnsEnvironment, apnsToken, webcourierURL}`; the courier queue starts after the newest
    /// notification, and lives for the configured time-to-live.
    @Sendable func create(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, user) = try await Self.signedIn(request, context, server)
        let body = try await RequestBody.decode(CreateRequest.self, from: request, limit: RequestLimits.jsonBody)
        let environment = body.apnsEnvironment ?? "development"
        guard ["development", "production"].contains(environment) else {
            throw APIError.badRequest("apnsEnvironment must be development or production")
        }
        let token = Tokens.randomBase64URL(bytes: 32)
        let ttl = server.configuration.notificationQueueLifetime
        try await server.store.savePushToken(PushToken(
            token: token, containerID: authentication.container.id, environment: authentication.environment, user: user,
            apnsEnvironment: environment, expiresAt: ServerClock.now() + Int64(ttl) * 1000,
            cursor: try await server.store.latestNotificationID()
        ))
        let base = DatabaseCall.baseURL(of: request, server)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("apnsEnvironment")
            writer.string(environment)
            writer.key("apnsToken")
            writer.string(token)
            writer.key("webcourierURL")
            writer.string("\(base)/courier/1/\(token)?ttl=\(ttl)")
        })
    }

    /// Accepts a token from `tokens/create` (its queue is already the user's), or an APNs device token,
    /// whose device then receives the user's notifications through Apple's push service.
    @Sendable func registerToken(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, user) = try await Self.signedIn(request, context, server)
        let body = try await RequestBody.decode(RegisterRequest.self, from: request, limit: RequestLimits.jsonBody)
        var environment = body.apnsEnvironment ?? "development"
        if let token = try await server.store.pushToken(body.apnsToken, now: ServerClock.now()), token.user == user {
            environment = token.apnsEnvironment
        } else {
            guard server.configuration.apns != nil else {
                throw APIError.badRequest("apnsToken is not a token from tokens/create, and this server has no APNs key to send through Apple's push service")
            }
            let device = body.apnsToken.lowercased()
            guard (32...200).contains(device.utf8.count), device.utf8.count % 2 == 0, device.allSatisfy(\.isHexDigit) else {
                throw APIError.badRequest("apnsToken is neither a token from tokens/create nor an APNs device token (hexadecimal)")
            }
            guard ["development", "production"].contains(environment) else {
                throw APIError.badRequest("apnsEnvironment must be development or production")
            }
            try await server.store.savePushDevice(PushDevice(
                token: device, containerID: authentication.container.id, environment: authentication.environment, user: user, apnsEnvironment: environment
            ))
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("apnsEnvironment")
            writer.string(environment)
            writer.key("apnsToken")
            writer.string(body.apnsToken)
        })
    }

    static func signedIn(_ request: Request, _ context: StratusRequestContext, _ server: ServerState) async throws -> (Authentication, String) {
        let containerID = try context.parameters.require("container")
        let environment = try context.parameters.require("environment")
        let authentication = try await server.authenticator.authenticate(request, containerID: containerID, environment: environment)
        guard let user = authentication.userRecordName else {
            throw APIError(.authenticationRequired, "notifications are for a signed-in user (ckWebAuthToken)")
        }
        return (authentication, user)
    }
}
