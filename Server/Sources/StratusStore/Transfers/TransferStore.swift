import Foundation
import StratusModel

/// The progress of imports and exports, kept in the store so that the console of every node shows it.
public protocol TransferStore: Sendable {
    /// Saves a transfer's status, replacing the one of the same container and id.
    func saveTransfer(_ status: TransferStatus) async throws
    /// The container's transfers, the most recently updated first, at most ``TransferRecords/listed``.
    func transfers(containerID: String) async throws -> [TransferStatus]
}

/// How both backends keep a transfer: its status as JSON in one row.
public enum TransferRecords {
    /// How many transfers a container lists.
    public static let listed = 20

    public static func encode(_ status: TransferStatus) throws -> String {
        String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
    }

    /// The stored status; nil for a row this version cannot read.
    public static func decode(_ body: String) -> TransferStatus? {
        try? JSONDecoder().decode(TransferStatus.self, from: Data(body.utf8))
    }
}
