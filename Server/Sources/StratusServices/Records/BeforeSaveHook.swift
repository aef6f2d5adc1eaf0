import StratusStore

/// What `beforeSave` functions made of a batch of record operations: the operations to write (fields changed as
/// the functions answered) and those refused, by index.
package struct BeforeSaveOutcome: Sendable {
    package var operations: [RecordOperation]
    package var refusals: [Int: StorageError]

    package init(operations: [RecordOperation], refusals: [Int: StorageError]) {
        self.operations = operations
        self.refusals = refusals
    }
}

/// The `beforeSave` functions of one caller's write, run by ``RecordWrites`` before the store: the server runs them
/// with WebAssembly, as the caller.
package protocol BeforeSaveHook: Sendable {
    func run(_ operations: [RecordOperation], zone: ZoneRef) async throws -> BeforeSaveOutcome
}
