extension SQLiteStore {
    /// How the SQLite store opens its file.
    public struct Configuration: Sendable {
        /// When commits reach the disk.
        public enum Durability: String, Sendable, CaseIterable {
            /// A commit survives the process being killed (`synchronous=NORMAL` in WAL mode). The default.
            case process
            /// A commit also survives power loss (`synchronous=FULL`): one fsync per group commit.
            case full
        }

        /// The database file's path.
        public var path: String
        public var durability: Durability
        /// How many connections may read at once. Keep it above the number of CPU cores: reads run on
        /// the caller's thread.
        public var maximumReaderCount: Int

        public init(path: String, durability: Durability = .process, maximumReaderCount: Int = 8) {
            self.path = path
            self.durability = durability
            self.maximumReaderCount = maximumReaderCount
        }
    }
}
