import Crypto
import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore
import Synchronization

/// Checks server-to-server signatures (`docs/protocol.md#server-to-server-keys`, `#what-clients-send`).
///
/// The signed message is `date:base64(sha256(body)):subpath`, signed with ECDSA P-256 SHA-256. As real
/// clients differ, the subpath may be signed with or without its query string, and an empty body may be
/// hashed or left empty; DER and raw 64-byte signatures are both accepted.
final class ServerKeyVerifier: Sendable {
    /// How far the request's date may be from the server's clock.
    static let allowedSkew: TimeInterval = 300

    private let store: any Store
    /// Keys by ID, with their public key's raw bytes (the key type itself is not `Sendable`).
    private let keys = EventFedCache<String, CachedKey>(timeToLive: .seconds(3_600))

    private struct CachedKey: Sendable {
        var key: ServerKey
        var publicKey: Data
    }
    /// Developer accounts by container: they never change once made.
    private let developers = Mutex<[String: Account]>([:])

    init(store: any Store) {
        self.store = store
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.keys.forgetAll()
            case .committed(let events):
                for case .serverKeyRevoked(let id) in events { self?.keys.forget(id) }
            }
        }
    }

    /// Whether a request is signed with a server-to-server key (rather than carrying tokens).
    static func isSigned(_ request: Request) -> Bool {
        request.headers[.cloudKitKeyID] != nil
    }

    /// The key that signed the request.
    /// - Throws: `AUTHENTICATION_FAILED` for a missing header, an unknown or revoked key, a date more than
    ///   five minutes off, or a signature that matches neither the body nor the path.
    func verify(_ request: Request, body: ByteBuffer, containerID: String, now: Date = Date()) async throws -> ServerKey {
        guard let keyID = request.headers[.cloudKitKeyID], let dateText = request.headers[.cloudKitDate],
            let signatureText = request.headers[.cloudKitSignature]
        else {
            throw APIError(.authenticationFailed, "a signed request needs the X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1 headers")
        }
        guard let date = try? Date(dateText, strategy: .iso8601), abs(date.timeIntervalSince(now)) <= Self.allowedSkew else {
            throw APIError(.authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date must be the current time (within 5 minutes), like 2016-01-25T22:15:43Z")
        }
        // A key revoked by any process is refused from the moment its revocation committed.
        try await store.catchUpEvents()
        guard let (key, publicKey) = try await key(id: keyID), key.containerID == containerID else {
            throw APIError(.authenticationFailed, "the server-to-server key is not known for this container")
        }
        guard let signatureBytes = Data(base64Encoded: signatureText) else {
            throw APIError(.authenticationFailed, "X-Apple-CloudKit-Request-SignatureV1 is not base64")
        }
        let signatures = [
            try? P256.Signing.ECDSASignature(derRepresentation: signatureBytes),
            try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
        ].compactMap { $0 }
        let bodyBytes = Data(body.readableBytesView)
        let hash = Data(SHA256.hash(data: bodyBytes)).base64EncodedString()
        let hashes = bodyBytes.isEmpty ? [hash, ""] : [hash]
        let target = request.head.path ?? request.uri.path
        let paths = Set([String(target.prefix { $0 != "?" }), target])
        for path in paths {
            for hash in hashes {
                let message = Data("\(dateText):\(hash):\(path)".utf8)
                if let signature = signatures.first(where: { publicKey.isValidSignature($0, for: message) }) {
                    try await refuseReplay(of: signature, key: key, date: date, now: now)
                    return key
                }
            }
        }
        throw APIError(.authenticationFailed, "the request signature does not match its date, body and path")
    }

    /// Refuses a signature accepted before, while its date is within the window.
    ///
    /// A signature is known by its `r` half: `r` comes from the signer's random nonce, so every honest
    /// signature has its own, and the other encodings of one signature (DER or raw, `s` or `n - s`) share it.
    private func refuseReplay(of signature: P256.Signing.ECDSASignature, key: ServerKey, date: Date, now: Date) async throws {
        let r = signature.rawRepresentation.prefix(32).map { String(format: "%02x", $0) }.joined()
        let expiresAt = Int64((date.timeIntervalSince1970 + Self.allowedSkew) * 1000) + 1000
        guard try await store.markSignatureSeen(key.id + ":" + r, expiresAt: expiresAt, now: Int64(now.timeIntervalSince1970 * 1000)) else {
            throw APIError(.authenticationFailed, "this signed request was sent before; sign each request anew")
        }
    }

    private func key(id: String) async throws -> (ServerKey, P256.Signing.PublicKey)? {
        let cached = try await keys.value(for: id) {
            guard let key = try await store.serverKey(id: id),
                let publicKey = try? P256.Signing.PublicKey(pemRepresentation: key.publicKeyPEM)
            else { return nil }
            return CachedKey(key: key, publicKey: publicKey.rawRepresentation)
        }
        guard let cached, let publicKey = try? P256.Signing.PublicKey(rawRepresentation: cached.publicKey) else { return nil }
        return (cached.key, publicKey)
    }

    /// The container's developer account, which every key of the container acts as: `users/caller` answers
    /// it, and `created`/`modified` of signed writes name it. Made the first time a container needs it.
    func developer(of containerID: String) async throws -> Account {
        if let known = developers.withLock({ $0[containerID] }) { return known }
        var developer = try await store.account(containerID: containerID, emailAddress: "")
        if developer == nil {
            let made = Account.developer(
                containerID: containerID, userRecordName: "_" + Tokens.randomHex(bytes: 16), createdAt: ServerClock.now()
            )
            do {
                try await store.createAccount(made)
                developer = made
            } catch let error as StorageError where error.code == .alreadyExists {
                // Another request or node made it first.
                developer = try await store.account(containerID: containerID, emailAddress: "")
            }
        }
        guard let developer else { throw APIError(.internalError, "the container's developer account could not be made") }
        developers.withLock { $0[containerID] = developer }
        return developer
    }
}
