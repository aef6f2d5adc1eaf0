import StratusModel
import StratusStore

extension PostgresStore {
    /// The database that a row's container, environment, scope and owner columns name.
    static func database(_ containerID: String, _ environment: String, _ scope: String, _ owner: String) -> DatabaseRef {
        DatabaseRef(
            containerID: containerID, environment: Environment(rawValue: environment) ?? .development,
            scope: DatabaseScope(rawValue: scope) ?? .public, ownerRecordName: owner
        )
    }
}
