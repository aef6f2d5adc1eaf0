/// The three databases of a container environment (`ckws-protocol.md` §1.1).
public enum DatabaseScope: String, Sendable, Hashable, CaseIterable, Codable {
    /// App-wide data, governed by security roles.
    case `public`
    /// One per user; only that user sees it.
    case `private`
    /// Other users' zones that the caller joined through shares.
    case shared
}
