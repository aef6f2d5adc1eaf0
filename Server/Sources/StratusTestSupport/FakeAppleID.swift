import StratusServices
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import StratusStoreTesting
import Synchronization
import _CryptoExtras

/// Apple's part in Sign in with Apple, on loopback: a JSON Web Key Set at `/auth/keys` (its fetches counted), and
/// identity tokens signed with its RSA keys as Apple signs them, or wrongly on request; `/auth/token` and
/// `/auth/revoke`, which check the developer's client secrets as Apple does. It also plays any OpenID Connect
/// provider: its discovery document at `/.well-known/openid-configuration` names ``issuer``.
public final class FakeAppleID: Sendable {
    public struct SigningKey: @unchecked Sendable {
        public let id: String
        public let key: _RSA.Signing.PrivateKey
    }

    /// The developer's key that Apple checks client secrets with (what a team registers in its account).
    public struct ClientSecretKey: @unchecked Sendable {
        public var teamID: String
        public var keyID: String
        public var publicKey: P256.Signing.PublicKey
    }

    /// What the server and the test share: the keys the set publishes (newest last) and how often it was fetched;
    /// the authorization codes and refresh tokens it issued, the tokens revoked, and how many revocations it
    /// should still refuse (as Apple down).
    public final class State: Sendable {
        let published: Mutex<[SigningKey]>
        let fetches = Mutex(0)
        let clientSecretKey = Mutex<ClientSecretKey?>(nil)
        let codes = Mutex<[String: String]>([:])
        let refreshTokens = Mutex<[String: String]>([:])
        let revoked = Mutex<[String]>([])
        let revocationFailuresLeft = Mutex(0)
        let refusals = Mutex<[String]>([])

        init(_ first: SigningKey) {
            published = Mutex([first])
        }
    }

    public let state: State
    public let port: Int
    private let channel: any Channel

    public var keysURL: String { "http://127.0.0.1:\(port)/auth/keys" }
    /// The issuer its discovery document names, when it plays an OpenID Connect provider.
    public var issuer: String { "http://127.0.0.1:\(port)" }
    public var fetches: Int { state.fetches.withLock { $0 } }

    public init() throws {
        let state = State(SigningKey(id: "key-1", key: try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        self.state = state
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(KeySetResponder(state))
                }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    deinit {
        channel.close(promise: nil)
    }

    /// Publishes a new key, as Apple rotating its keys.
    @discardableResult
    public func rotate() throws -> SigningKey {
        let key = SigningKey(id: "key-\(state.published.withLock { $0.count } + 1)", key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        state.published.withLock { $0.append(key) }
        return key
    }

    /// Accepts client secrets signed by this key for this team (`/auth/token`, `/auth/revoke`).
    public func acceptClientSecrets(teamID: String, keyID: String, publicKey: P256.Signing.PublicKey) {
        state.clientSecretKey.withLock { $0 = ClientSecretKey(teamID: teamID, keyID: keyID, publicKey: publicKey) }
    }

    /// A one-time authorization code for `clientID`, as the app gets beside the identity token.
    public func authorizationCode(clientID: String = "com.example.Notes") -> String {
        let code = "c" + UUID().uuidString.lowercased()
        state.codes.withLock { $0[code] = clientID }
        return code
    }

    /// The refresh tokens issued for codes so far, with their client IDs.
    public var issuedRefreshTokens: [String: String] { state.refreshTokens.withLock { $0 } }
    /// The tokens revoked so far, in order.
    public var revokedTokens: [String] { state.revoked.withLock { $0 } }
    /// Why requests to `/auth/token` and `/auth/revoke` were refused, in order.
    public var refusals: [String] { state.refusals.withLock { $0 } }

    /// Answers the next `count` revocations `503`, as Apple down.
    public func failRevocations(_ count: Int) {
        state.revocationFailuresLeft.withLock { $0 = count }
    }

    /// How a token should be made wrong.
    public enum Forgery: Sendable {
        case none
        /// Signed by a key the set does not publish, under a published key's ID.
        case otherKey
        /// `alg: none` and no signature.
        case algorithmNone
        /// HS256 with the published public key's bytes as the secret (the classic confusion).
        case hmacWithPublicKey
    }

    /// An identity token for `subject`, with Apple's claims and any in `extra` (`nil` values removed).
    public func token(
        subject: String = "001234.abcd", audience: String = "com.example.Notes", rawNonce: String, email: String? = "ann@example.com",
        privateEmail: Bool = false, expiresIn: Int64 = 600, issuer: String = "https://appleid.apple.com", keyID: String? = nil,
        forgery: Forgery = .none
    ) throws -> String {
        let key = state.published.withLock { $0.last! }
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": subject, "iat": now, "exp": now + expiresIn, "auth_time": now,
            "nonce": SHA256.hash(data: Data(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined(), "nonce_supported": true,
        ]
        if let email {
            claims["email"] = email
            claims["email_verified"] = "true"
            claims["is_private_email"] = privateEmail ? "true" : "false"
        }
        let algorithm = forgery == .algorithmNone ? "none" : forgery == .hmacWithPublicKey ? "HS256" : "RS256"
        let header: [String: Any] = ["alg": algorithm, "kid": keyID ?? key.id]
        let signed = Self.base64URL(try JSONSerialization.data(withJSONObject: header)) + "." + Self.base64URL(try JSONSerialization.data(withJSONObject: claims))
        let signature: Data
        switch forgery {
        case .none:
            signature = try key.key.signature(for: Data(signed.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .otherKey:
            signature = try _RSA.Signing.PrivateKey(keySize: .bits2048).signature(for: Data(signed.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .algorithmNone:
            signature = Data()
        case .hmacWithPublicKey:
            let secret = SymmetricKey(data: key.key.publicKey.derRepresentation)
            signature = Data(HMAC<SHA256>.authenticationCode(for: Data(signed.utf8), using: secret))
        }
        return signed + "." + Self.base64URL(signature)
    }

    /// A server-to-server notification's body, `{"payload": JWT}`, for an event of `type` about `subject`.
    public func notification(type: String, subject: String, audience: String = "com.example.Notes", id: String = UUID().uuidString, email: String? = nil)
        throws -> String
    {
        let key = state.published.withLock { $0.last! }
        let now = Int64(Date().timeIntervalSince1970)
        var event: [String: Any] = ["type": type, "sub": subject, "event_time": now * 1000]
        if let email {
            event["email"] = email
            event["is_private_email"] = "true"
        }
        let events = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
        let claims: [String: Any] = ["iss": "https://appleid.apple.com", "aud": audience, "iat": now, "exp": now + 86_400, "jti": id, "events": events]
        let header: [String: Any] = ["alg": "RS256", "kid": key.id]
        let signed = Self.base64URL(try JSONSerialization.data(withJSONObject: header)) + "." + Self.base64URL(try JSONSerialization.data(withJSONObject: claims))
        let signature = try key.key.signature(for: Data(signed.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        let body = ["payload": signed + "." + Self.base64URL(signature)]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    public static func base64URL(_ data: Data) -> String {
        SoftwarePasskeys.base64URL(Array(data))
    }

    /// Answers `GET /auth/keys` with the published keys.
    private final class KeySetResponder: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: State

        init(_ state: State) {
            self.state = state
        }

        private var path = ""
        private var body = ByteBuffer()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                path = head.uri
                body.clear()
            case .body(var part): body.writeBuffer(&part)
            case .end: respond(context)
            }
        }

        private func respond(_ context: ChannelHandlerContext) {
            let port = context.channel.localAddress?.port ?? 0
            if path == "/auth/token" || path == "/auth/revoke" {
                let form = Self.form(String(buffer: body))
                let (status, answer) = path == "/auth/token" ? exchange(form) : revoke(form)
                send(answer, context, status: status)
                return
            }
            if path == "/.well-known/openid-configuration" {
                let base = "http://127.0.0.1:\(port)"
                send(["issuer": base, "jwks_uri": base + "/auth/keys", "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token"], context)
                return
            }
            state.fetches.withLock { $0 += 1 }
            let entries: [[String: Any]] = state.published.withLock { $0 }.compactMap { key in
                guard let primitives = try? key.key.publicKey.getKeyPrimitives() else { return nil }
                return [
                    "kty": "RSA", "kid": key.id, "use": "sig", "alg": "RS256",
                    "n": FakeAppleID.base64URL(primitives.modulus), "e": FakeAppleID.base64URL(primitives.publicExponent),
                ]
            }
            send(["keys": entries], context)
        }

        /// `/auth/token`: a code it issued, for the client the client secret names, becomes a refresh token.
        private func exchange(_ form: [String: String]) -> (HTTPResponseStatus, [String: Any]) {
            if let refusal = clientSecretRefusal(form) { return refuse(.badRequest, "invalid_client", refusal) }
            guard form["grant_type"] == "authorization_code", let code = form["code"],
                let clientID = state.codes.withLock({ $0.removeValue(forKey: code) }), clientID == form["client_id"]
            else {
                return refuse(.badRequest, "invalid_grant", "token: unknown or reused code \(form["code"] ?? "")")
            }
            let refreshToken = "r" + UUID().uuidString.lowercased()
            state.refreshTokens.withLock { $0[refreshToken] = clientID }
            return (.ok, ["access_token": "a" + UUID().uuidString, "token_type": "Bearer", "expires_in": 3600, "refresh_token": refreshToken])
        }

        /// `/auth/revoke`: records the token, unless told to fail.
        private func revoke(_ form: [String: String]) -> (HTTPResponseStatus, [String: Any]) {
            let failing = state.revocationFailuresLeft.withLock { left -> Bool in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
            if failing { return refuse(.serviceUnavailable, "temporarily_unavailable", "revoke: failing on purpose") }
            if let refusal = clientSecretRefusal(form) { return refuse(.badRequest, "invalid_client", refusal) }
            guard let token = form["token"], !token.isEmpty else { return refuse(.badRequest, "invalid_request", "revoke: no token") }
            state.revoked.withLock { $0.append(token) }
            return (.ok, [:])
        }

        private func refuse(_ status: HTTPResponseStatus, _ error: String, _ why: String) -> (HTTPResponseStatus, [String: Any]) {
            state.refusals.withLock { $0.append(why) }
            return (status, ["error": error])
        }

        /// Why the form's `client_secret` is not an ES256 JWT by the registered key, for its `client_id`, if it is not.
        private func clientSecretRefusal(_ form: [String: String]) -> String? {
            guard let key = state.clientSecretKey.withLock({ $0 }) else { return "no client secret key registered" }
            let parts = (form["client_secret"] ?? "").split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let headerData = Self.decode(parts[0]), let claimsData = Self.decode(parts[1]), let signatureData = Self.decode(parts[2]),
                let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
                let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
            else { return "client secret is not a JWT" }
            guard header["alg"] as? String == "ES256", header["kid"] as? String == key.keyID else { return "client secret header \(header)" }
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
                key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
            else { return "client secret signature does not verify" }
            let now = Int64(Date().timeIntervalSince1970)
            guard claims["iss"] as? String == key.teamID, claims["aud"] as? String == "https://appleid.apple.com",
                claims["sub"] as? String == form["client_id"], let exp = (claims["exp"] as? NSNumber)?.int64Value, exp > now,
                let iat = (claims["iat"] as? NSNumber)?.int64Value, iat <= now + 60, exp - iat <= 15_777_000
            else { return "client secret claims \(claims) for client \(form["client_id"] ?? "")" }
            return nil
        }

        private static func decode(_ base64URL: String) -> Data? {
            var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            return Data(base64Encoded: text)
        }

        private static func form(_ text: String) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
                fields[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            return fields
        }

        private func send(_ object: [String: Any], _ context: ChannelHandlerContext, status: HTTPResponseStatus = .ok) {
            let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
            var head = HTTPResponseHead(version: .http1_1, status: status)
            head.headers.add(name: "content-type", value: "application/json")
            head.headers.add(name: "content-length", value: String(body.count))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
