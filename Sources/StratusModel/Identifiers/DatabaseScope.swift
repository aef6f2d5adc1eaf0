/// The three databases of a container environment (`docs/protocol.md#paths`).
public enum DatabaseScope: String, Sendable, Hashable, CaseIterable, Codable {
    /// App-wide data, governed by security roles.
    case `public`
    /// One per user; only that user sees it.
    case `private`
    /// Other users' zones that the caller joined through shares.
    case shared
}
