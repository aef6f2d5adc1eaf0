import StratusModel

/// A change of a container's two schemas, made once for every backend: both schemas before and after, and what
/// the change answered. A backend stores the new schemas, then removes and indexes, per environment, what the
/// change took out (``SchemaRemovals``) and added (``IndexBuildChange``), in the same transaction.
public struct SchemaTransition<Result: Sendable> {
    /// One environment's schema before and after.
    public struct Step: Sendable {
        public var environment: Environment
        public var old: Schema
        public var new: Schema
        /// What the change takes out of the environment's records.
        public var removals: SchemaRemovals { SchemaRemovals(from: old, to: new) }
    }

    public let development: Step
    public let production: Step
    public let result: Result

    /// Runs `change` over copies of both schemas, with the record counts it asked for.
    public init(
        development: Schema, production: Schema, counts: [RecordCountRequest: Int],
        _ change: (inout Schema, inout Schema, [RecordCountRequest: Int]) throws -> Result
    ) throws {
        var newDevelopment = development
        var newProduction = production
        result = try change(&newDevelopment, &newProduction, counts)
        self.development = Step(environment: .development, old: development, new: newDevelopment)
        self.production = Step(environment: .production, old: production, new: newProduction)
    }

    /// Both environments' steps.
    public var steps: [Step] { [development, production] }
}
