import Crypto
import Foundation
import StratusModel
import StratusStore

/// Containers' secrets as the server uses them: sealed with the operator's secrets key on the way to the store,
/// opened on the way back, never returned by the API.
package struct ContainerSecrets: Sendable {
    package let store: any Store
    package let keys: SecretsKeyring

    /// The name of Apple's Sign in with Apple key (`.p8`) among a container's secrets.
    package static let applePrivateKey = "apple.privateKey"

    /// The name of an OpenID Connect provider's client secret among a container's secrets.
    package static func clientSecretName(of provider: String) -> String { "openid.\(provider).clientSecret" }

    /// Stores `value` as the container's secret `name`, after checking it is one the server uses: Apple's key must be
    /// a P-256 private key in PEM (a `.p8` file as Apple gives it), a client secret must name a configured provider.
    /// - Throws: `BAD_REQUEST` naming what is wrong; `NOT_FOUND` for an unknown container.
    package func set(_ value: String, named name: String, containerID: String) async throws {
        guard let container = try await store.container(id: containerID) else {
            throw ServiceError(.notFound, "container \(containerID) does not exist")
        }
        let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty, value.utf8.count <= 16 * 1024 else { throw ServiceError.invalidArgument("a secret's value must be 1 byte to 16 KB") }
        if name == Self.applePrivateKey {
            guard (try? P256.Signing.PrivateKey(pemRepresentation: value)) != nil else {
                throw ServiceError.invalidArgument("apple.privateKey must be the Sign in with Apple key as Apple gives it: a .p8 file (PEM, EC P-256)")
            }
        } else if let provider = Self.provider(inSecretName: name) {
            guard container.accountSettings.openIDProviders.contains(where: { $0.name == provider }) else {
                throw ServiceError.invalidArgument("this container has no OpenID provider named \(provider): add it to the account settings first")
            }
        } else {
            throw ServiceError.invalidArgument("'\(name)' is not a secret Stratus uses: apple.privateKey or openid.{provider}.clientSecret")
        }
        let sealed = try keys.seal(value, context: SealingContext.containerSecret(containerID, name))
        try await store.setContainerSecret(ContainerSecret(containerID: containerID, name: name, sealedValue: sealed, updatedAt: ServerClock.now()))
    }

    /// The container's secret `name` in clear, or `nil` when it has none.
    package func value(named name: String, containerID: String) async throws -> String? {
        guard let secret = try await store.containerSecret(containerID: containerID, name: name) else { return nil }
        return try keys.open(secret.sealedValue, context: SealingContext.containerSecret(containerID, name))
    }

    /// Seals every sealed value the store keeps with the current key, and returns how many it changed: the step of a
    /// key rotation after every node has the new key first.
    /// - Throws: `INTERNAL_ERROR` for a value none of the server's keys opens (nothing after it is resealed).
    package func resealAll() async throws -> (resealed: Int, current: Int) {
        var resealed = 0
        var current = 0
        for value in try await store.sealedValues() {
            if keys.isSealedWithCurrentKey(value.value) {
                current += 1
                continue
            }
            let context = Self.context(of: value.place)
            let fresh = try keys.seal(try keys.open(value.value, context: context), context: context)
            if try await store.replaceSealedValue(value, with: fresh) { resealed += 1 }
        }
        // Webhook endpoints keep their secrets in a list on the endpoint's row.
        for container in try await store.containers() {
            for var endpoint in try await store.webhookEndpoints(containerID: container.id) {
                let context = SealingContext.webhookSecret(endpoint.containerID, endpoint.id)
                let stale = endpoint.sealedSecrets.filter { !keys.isSealedWithCurrentKey($0) }
                current += endpoint.sealedSecrets.count - stale.count
                guard !stale.isEmpty else { continue }
                endpoint.sealedSecrets = try endpoint.sealedSecrets.map {
                    keys.isSealedWithCurrentKey($0) ? $0 : try keys.seal(try keys.open($0, context: context), context: context)
                }
                try await store.updateWebhookEndpoint(endpoint)
                resealed += stale.count
            }
        }
        // The admin key's copy, from which each node writes its data folder's admin.key.
        if var state = try await store.adminKeyState(), let sealed = state.sealedKey {
            if keys.isSealedWithCurrentKey(sealed) {
                current += 1
            } else {
                state.sealedKey = try keys.seal(try keys.open(sealed, context: SealingContext.adminKey), context: SealingContext.adminKey)
                try await store.setAdminKeyState(state)
                resealed += 1
            }
        }
        return (resealed, current)
    }

    /// The context a sealed value is bound to, from where it is kept. A pending revocation holds its identity's
    /// refresh token, sealed where the identity kept it.
    package static func context(of place: SealedValue.Place) -> String {
        switch place {
        case .containerSecret(let containerID, let name): SealingContext.containerSecret(containerID, name)
        case .refreshToken(let containerID, let provider, let subject), .pendingRevocation(let containerID, let provider, let subject):
            SealingContext.refreshToken(containerID, provider, subject)
        }
    }

    /// `corp` for `openid.corp.clientSecret`.
    private static func provider(inSecretName name: String) -> String? {
        guard name.hasPrefix("openid."), name.hasSuffix(".clientSecret") else { return nil }
        let provider = name.dropFirst("openid.".count).dropLast(".clientSecret".count)
        return provider.isEmpty ? nil : String(provider)
    }

    package init(store: any Store, keys: SecretsKeyring) {
        self.store = store
        self.keys = keys
    }
}
