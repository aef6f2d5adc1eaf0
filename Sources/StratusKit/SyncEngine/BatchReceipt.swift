import Foundation

extension SyncEngine {
    /// What became of each change of one sent batch of record changes (a Stratus addition to CKSyncEngine, whose
    /// app learns only of saved and failed records). Batches are numbered from 1 across launches, so an app can
    /// log them, tell the user which of their edits reached the server, and find a batch again by its ``label``.
    ///
    /// ```swift
    /// case .sentBatch(let receipt):
    ///     for entry in receipt.entries where !entry.outcome.isFinal { markUnsent(entry.change.recordID) }
    ///     log("batch \(receipt.number) \(receipt.label ?? ""): \(receipt.isComplete ? "all sent" : "some pending")")
    /// ```
    public struct BatchReceipt: Sendable {
        /// What became of one change.
        public enum Outcome: Sendable {
            /// Saved: the record as the server has it now.
            case saved(Record)
            /// Deleted (or already gone).
            case deleted
            /// Refused, for the app to decide on (a conflict, a permission): no longer pending.
            case failed(StratusError)
            /// Not done for a reason retrying fixes (the network, a busy server): still pending, sent again.
            case pending(StratusError)

            /// Whether the change is settled: saved, deleted or refused, and no longer pending.
            public var isFinal: Bool {
                if case .pending = self { return false }
                return true
            }
        }

        /// One change of the batch and its outcome.
        public struct Entry: Sendable {
            public var change: PendingRecordZoneChange
            public var outcome: Outcome
        }

        /// The engine's count of batches sent, this one included.
        public var number: Int
        /// The label the app gave the batch (``RecordZoneChangeBatch/label``).
        public var label: String?
        /// When the batch was sent.
        public var sentAt: Date
        /// Every change of the batch, saves first, in the batch's order.
        public var entries: [Entry]

        /// Whether every change of the batch was saved or deleted.
        public var isComplete: Bool {
            entries.allSatisfy { entry in
                switch entry.outcome {
                case .saved, .deleted: true
                case .failed, .pending: false
                }
            }
        }
    }
}
