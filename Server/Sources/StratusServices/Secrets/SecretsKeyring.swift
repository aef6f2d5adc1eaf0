import Crypto
import Foundation

/// The operator's secrets keys (`--secrets-key`): what seals containers' secrets and providers' refresh tokens
/// before they reach the store, with AES-256-GCM.
///
/// The first key seals; every key opens, so that keys rotate without downtime: give every node the new key first and
/// the old one after it, reseal (`stratus secrets reseal`), then drop the old key. A sealed value reads
/// `s1.<key ID>.<base64 nonce, ciphertext and tag>`, and is bound to where it is kept (its `context`): a value
/// copied to another row does not open.
public struct SecretsKeyring: Sendable {
    private let keys: [(id: String, bytes: Data)]

    /// A keyring of 32-byte keys, the first of which seals.
    public init(keys: [SymmetricKey]) {
        self.keys = keys.map { key in (Self.identifier(of: key), key.withUnsafeBytes { Data($0) }) }
    }

    /// Keys as `--secrets-key` takes them: base64 of 32 bytes each, separated by commas or new lines.
    /// - Throws: ``ServiceError`` (`BAD_REQUEST`) naming the key that is not 32 bytes of base64.
    public init(parsing text: String) throws {
        let parts = text.split(whereSeparator: { $0 == "," || $0.isNewline }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let keys = try parts.enumerated().map { index, part -> SymmetricKey in
            guard let data = Data(base64Encoded: part), data.count == 32 else {
                throw ServiceError.invalidArgument("secrets key \(index + 1) is not 32 bytes in base64 (make one with `openssl rand -base64 32`)")
            }
            return SymmetricKey(data: data)
        }
        self.init(keys: keys)
    }

    /// A new random key, in base64.
    public static func newKeyText() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Whether any key is set.
    public var isEmpty: Bool { keys.isEmpty }

    /// The ID of the key that seals (the first 8 bytes of its SHA-256, in hexadecimal), shown to operators.
    public var currentKeyID: String? { keys.first?.id }

    /// `value` sealed with the first key, bound to `context`.
    /// - Throws: ``ServiceError`` when the server has no secrets key.
    package func seal(_ value: String, context: String) throws -> String {
        guard let (id, bytes) = keys.first else {
            throw ServiceError(.notConfigured, "this server has no secrets key: start it (every node, with the same key) with --secrets-key")
        }
        do {
            let box = try AES.GCM.seal(Data(value.utf8), using: SymmetricKey(data: bytes), authenticating: Data(context.utf8))
            guard let combined = box.combined else { throw ServiceError.failed(CancellationError()) }
            return "s1.\(id).\(combined.base64EncodedString())"
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError.failed(error)
        }
    }

    /// The value `sealed` holds.
    /// - Throws: ``ServiceError`` (`INTERNAL_ERROR`) when no key of this server sealed it, or it was not sealed for `context`.
    package func open(_ sealed: String, context: String) throws -> String {
        let parts = sealed.split(separator: ".", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "s1", let data = Data(base64Encoded: parts[2]) else {
            throw ServiceError(.failed, "a stored secret is not in a form this server reads")
        }
        guard let bytes = keys.first(where: { $0.id == parts[1] })?.bytes else {
            throw ServiceError(.failed, "a stored secret was sealed with secrets key \(parts[1]), which this server was not given (--secrets-key)")
        }
        do {
            let opened = try AES.GCM.open(try AES.GCM.SealedBox(combined: data), using: SymmetricKey(data: bytes), authenticating: Data(context.utf8))
            return String(decoding: opened, as: UTF8.self)
        } catch {
            throw ServiceError(.failed, "a stored secret does not open with secrets key \(parts[1]): it was altered or moved")
        }
    }

    /// Whether `sealed` was sealed with the key that seals now.
    package func isSealedWithCurrentKey(_ sealed: String) -> Bool {
        guard let id = keys.first?.id else { return false }
        return sealed.hasPrefix("s1.\(id).")
    }

    private static func identifier(of key: SymmetricKey) -> String {
        let digest = key.withUnsafeBytes { SHA256.hash(data: Data($0)) }
        return digest.prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}

/// Where each kind of sealed value is kept, as the context it is sealed for.
package enum SealingContext {
    package static func containerSecret(_ containerID: String, _ name: String) -> String { "container-secret|\(containerID)|\(name)" }
    package static func refreshToken(_ containerID: String, _ provider: String, _ subject: String) -> String {
        "refresh-token|\(containerID)|\(provider)|\(subject)"
    }
    package static func webhookSecret(_ containerID: String, _ endpointID: String) -> String { "webhook-secret|\(containerID)|\(endpointID)" }
    package static let adminKey = "admin-key"
}
