/// Why an archive could not be written or read: the only error type of `StratusArchive`. The message says what to
/// do about it.
public struct ArchiveError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
