import Foundation
import Logging
import StratusStore
import Synchronization

/// The server's shared admin key: the one a node was started with (`--admin-key`, or its data folder's `admin.key`)
/// until an operator rotates it or turns it off through the admin API; from then on the one stored
/// (``AdminKeyState``), which every node obeys as soon as it catches up with the store's events.
///
/// A rotation makes a new random key, answered once; the store keeps its SHA-256 and a sealed copy, from which each
/// node that keeps its key in a file (``ServerConfiguration/adminKeyFile``) writes the new one there, so that the
/// command line's admin commands that read the file keep working. Turned off, no key is admitted anywhere and the
/// console's sessions started with a key end: only operators, named in the audit log, act.
package final class AdminKeys: Sendable {
    /// What the key is on this node now.
    package enum Current: Sendable, Equatable {
        /// The key whose SHA-256 is this (hexadecimal).
        case key(hash: String)
        case turnedOff
    }

    private let store: any Store
    private let startedWith: String
    private let keyFile: String?
    private let sealer: SecretsKeyring
    private let logger: Logger
    /// The stored state once read; `nil` until read, and again after it changed.
    private let known = Mutex<Known?>(nil)

    private enum Known {
        case startedWith
        case stored(AdminKeyState)
    }

    package init(store: any Store, startedWith: String, keyFile: String?, sealer: SecretsKeyring, logger: Logger) {
        self.store = store
        self.startedWith = startedWith
        self.keyFile = keyFile
        self.sealer = sealer
        self.logger = logger
        store.observeEvents { [weak self] delivery in
            guard let self else { return }
            switch delivery {
            case .missed:
                self.known.withLock { $0 = nil }
            case .committed(let events):
                guard events.contains(.adminKeyChanged) else { return }
                self.known.withLock { $0 = nil }
                Task { await self.followInKeyFile() }
            }
        }
    }

    package static let turnedOffError = ServiceError(.authenticationFailed, "the admin key is turned off on this server: sign in as an operator")

    /// The key in force, read from the store when it may have changed.
    package func current() async throws -> Current {
        // A change made on another node holds here from the next request on.
        try await store.catchUpEvents()
        let known: Known
        if let cached = self.known.withLock({ $0 }) {
            known = cached
        } else {
            let read: Known = try await store.adminKeyState().map { .stored($0) } ?? .startedWith
            self.known.withLock { $0 = read }
            known = read
        }
        switch known {
        case .startedWith: return startedWith.isEmpty ? .turnedOff : .key(hash: Tokens.sha256Hex(startedWith))
        case .stored(let state): return state.keyHash.map { .key(hash: $0) } ?? .turnedOff
        }
    }

    /// Whether `presented` is the key in force (never an empty one).
    package func admits(_ presented: String) async throws -> Bool {
        guard !presented.isEmpty, case .key(let hash) = try await current() else { return false }
        return Tokens.constantTimeEquals(Tokens.sha256Hex(presented), hash)
    }

    /// The state as the admin API shows it: never the key.
    package func state() async throws -> AdminKeyState? {
        try await store.adminKeyState()
    }

    /// Makes a new key, stores it for every node and answers it (the only time it is shown).
    package func rotate(by actor: String) async throws -> String {
        let key = Tokens.randomHex(bytes: 32)
        let sealed = sealer.isEmpty ? nil : try sealer.seal(key, context: SealingContext.adminKey)
        try await store.setAdminKeyState(AdminKeyState(keyHash: Tokens.sha256Hex(key), sealedKey: sealed, changedAt: ServerClock.now(), changedBy: actor))
        try await store.catchUpEvents()
        writeKeyFile(key)
        return key
    }

    /// Turns the key off on every node.
    package func turnOff(by actor: String) async throws {
        try await store.setAdminKeyState(AdminKeyState(keyHash: nil, sealedKey: nil, changedAt: ServerClock.now(), changedBy: actor))
        try await store.catchUpEvents()
        writeKeyFile(nil)
    }

    /// Brings this node's key file in line with the stored state: at start, and after another node changed it.
    package func followInKeyFile() async {
        guard keyFile != nil else { return }
        do {
            guard let state = try await store.adminKeyState() else { return }
            guard let sealed = state.sealedKey else {
                if !state.isEnabled { writeKeyFile(nil) }
                return
            }
            writeKeyFile(try sealer.open(sealed, context: SealingContext.adminKey))
        } catch {
            logger.warning("cannot bring the admin key file up to date", metadata: ["stratus.error": "\(error)"])
        }
    }

    /// Writes `key` to the key file (readable by its owner only), or removes the file when the key is off.
    private func writeKeyFile(_ key: String?) {
        guard let keyFile else { return }
        guard let key else {
            try? FileManager.default.removeItem(atPath: keyFile)
            return
        }
        let temporary = keyFile + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]),
            rename(temporary, keyFile) == 0
        else {
            logger.warning("cannot write the rotated admin key to \(keyFile)")
            return
        }
    }
}
