import StratusModel

/// Names one container environment's schema, as a backend's schema cache keys it.
public struct SchemaKey: Hashable, Sendable {
    public var containerID: String
    public var environment: Environment

    public init(containerID: String, environment: Environment) {
        self.containerID = containerID
        self.environment = environment
    }
}
