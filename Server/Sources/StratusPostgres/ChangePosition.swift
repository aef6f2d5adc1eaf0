import StratusStore

/// Positions that order every change (records, zones, participants, store events, the outbox, notifications)
/// so that readers neither skip nor repeat one while several writers on several nodes commit at once.
///
/// A writing transaction's positions are its transaction id shifted left by ``counterBits``, plus a counter:
/// `((xid + offset) << 20) + 1, + 2, ...`. No row is shared between writers, so none waits for another. A
/// reader returns only *settled* positions: those below the bound `B << 20`, where `B` is the oldest
/// transaction still running in this database when the reader's statement began (from its snapshot, leaving out
/// transactions that `pg_stat_activity` shows running in other databases of the cluster), or the snapshot's
/// `xmax` when none is. Every transaction of this database below `B` has ended, so everything settled is
/// visible to the reader, and whatever commits later has a higher position. The order is the order in which
/// transactions first wrote, which keeps each writer's own changes in order; a long-running writer in this
/// database holds readers back until it ends (see ``PostgresStore/readSettled(_:)``).
///
/// `offset` (the `meta` row `position_offset`, 0 unless set) lifts positions above those of data copied from
/// another store (`stratus migrate`), so that tokens issued there keep their meaning here.
enum ChangePosition {
    /// Bits for the counter within one transaction.
    static let counterBits = 20
    /// The most positions one transaction may take.
    static let maximumPerTransaction: Int64 = (1 << 20) - 1

    /// SQL for the first position of the current (writing) transaction, given the offset as parameter `$1`.
    static let transactionBaseSQL = "SELECT ((pg_current_xact_id()::text::bigint + $1) << 20) + 1"

    /// SQL for the settled bound, with the offset as `offset`: positions below it are settled. The function
    /// (migration 2, ``PostgresMigrations/settledBoundFunction``) reads the calling statement's snapshot; as a
    /// sub-select it runs once per statement, not once per row compared with it.
    ///
    /// A transaction in the snapshot's running list that has ended by the time the backends' activity is read
    /// counts as this database's: the bound may then be lower than it could be, never higher.
    static func settledBoundSQL(offset: Int64) -> String {
        "(SELECT stratus_settled_bound(\(offset)))"
    }

    /// The lowest position a transaction whose id is `xid` can take, for tests and `stratus migrate`.
    static func base(xid: Int64, offset: Int64) -> Int64 {
        ((xid + offset) << Int64(counterBits)) + 1
    }
}
