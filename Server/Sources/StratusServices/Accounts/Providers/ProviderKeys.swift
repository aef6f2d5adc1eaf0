import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization
import _CryptoExtras

/// The signing keys providers publish (a JSON Web Key Set at a URL), fetched when first needed, kept for an hour,
/// and fetched again at once for a key ID not seen yet (a provider rotating its keys), at most once per
/// ``minimumRefetch`` per URL so that tokens naming made-up keys cannot make the server fetch without end.
package final class ProviderKeys: Sendable {
    /// A key that checks signatures of one algorithm.
    package enum Key: @unchecked Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    private struct Fetched {
        package var keys: [String: Key]
        package var at: ContinuousClock.Instant
    }

    private let client: HTTPClient
    private let fetched = Mutex<[String: Fetched]>([:])
    private let minimumRefetch: Duration
    private static let lifetime = Duration.seconds(3600)

    package init(client: HTTPClient, minimumRefetch: Duration) {
        self.client = client
        self.minimumRefetch = minimumRefetch
    }

    /// The key `id` of the set at `url`.
    /// - Throws: `AUTHENTICATION_FAILED` when the set has no such key; `SERVICE_UNAVAILABLE` when it cannot be fetched.
    package func key(_ id: String, at url: String) async throws -> Key {
        let now = ContinuousClock.now
        let known = fetched.withLock { $0[url] }
        if let known, let key = known.keys[id], now - known.at < Self.lifetime { return key }
        if let known, now - known.at < minimumRefetch {
            if let key = known.keys[id] { return key }
            throw ServiceError(.authenticationFailed, "the identity token names a key (\(id)) the provider does not publish")
        }
        let keys = try await fetch(url)
        fetched.withLock { $0[url] = Fetched(keys: keys, at: now) }
        guard let key = keys[id] else {
            throw ServiceError(.authenticationFailed, "the identity token names a key (\(id)) the provider does not publish")
        }
        return key
    }

    private func fetch(_ url: String) async throws -> [String: Key] {
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw ServiceError(.unavailable, "the provider's keys answered \(response.status.code)") }
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.unavailable, "the provider's keys (\(url)) could not be fetched: \(error)")
        }
        guard let set = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any], let entries = set["keys"] as? [[String: Any]] else {
            throw ServiceError(.unavailable, "the provider's keys (\(url)) are not a JSON Web Key Set")
        }
        var keys: [String: Key] = [:]
        for entry in entries {
            guard let id = entry["kid"] as? String, let key = Self.key(from: entry) else { continue }
            keys[id] = key
        }
        return keys
    }

    /// An RSA key (`n`, `e`) or a P-256 key (`x`, `y`) of a JSON Web Key; `nil` for other kinds.
    package static func key(from entry: [String: Any]) -> Key? {
        func bytes(_ name: String) -> [UInt8]? { (entry[name] as? String).flatMap(WebAuthTokens.bytes(base64URL:)) }
        switch entry["kty"] as? String {
        case "RSA":
            guard let n = bytes("n"), let e = bytes("e"), let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return nil }
            return .rsa(key)
        case "EC":
            guard entry["crv"] as? String == "P-256", let x = bytes("x"), let y = bytes("y"), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
            else { return nil }
            return .p256(key)
        default:
            return nil
        }
    }
}
