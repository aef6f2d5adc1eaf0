/// One of a container's two environments. Their data never mix.
public enum Environment: String, Sendable, Hashable, CaseIterable, Codable {
    /// Editable schema; saving unknown types and fields creates them (just-in-time schema).
    case development
    /// Schema changes only by deploy; unknown types and fields are refused.
    case production
}
