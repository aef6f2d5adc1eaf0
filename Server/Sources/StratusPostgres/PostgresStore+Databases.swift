import StratusModel
import StratusStore

extension PostgresStore {
    /// What an asset row's `state` says. 0 uploading, 1 stored, 2 being collected.
    enum AssetState: Int16 {
        case uploading = 0, stored = 1, collecting = 2
    }

    /// The database that a row's container, environment, scope and owner columns name.
    static func database(_ containerID: String, _ environment: String, _ scope: String, _ owner: String) -> DatabaseRef {
        DatabaseRef(
            containerID: containerID, environment: Environment(rawValue: environment) ?? .development,
            scope: DatabaseScope(rawValue: scope) ?? .public, ownerRecordName: owner
        )
    }
}
