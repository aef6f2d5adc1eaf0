import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import StratusStoreTesting
import Synchronization
import _CryptoExtras

/// Apple's part in Sign in with Apple, on loopback: a JSON Web Key Set at `/auth/keys` (its fetches counted), and
/// identity tokens signed with its RSA keys as Apple signs them, or wrongly on request. It also plays any OpenID
/// Connect provider: its discovery document at `/.well-known/openid-configuration` names ``issuer``.
public final class FakeAppleID: Sendable {
    public struct SigningKey: @unchecked Sendable {
        public let id: String
        public let key: _RSA.Signing.PrivateKey
    }

    /// What the server and the test share: the keys the set publishes (newest last) and how often it was fetched.
    public final class State: Sendable {
        let published: Mutex<[SigningKey]>
        let fetches = Mutex(0)

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

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): path = head.uri
            case .body: break
            case .end: respond(context)
            }
        }

        private func respond(_ context: ChannelHandlerContext) {
            let port = context.channel.localAddress?.port ?? 0
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

        private func send(_ object: [String: Any], _ context: ChannelHandlerContext) {
            let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "content-type", value: "application/json")
            head.headers.add(name: "content-length", value: String(body.count))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
