/// Why an import or export stopped: the message says what to do about it.
public struct TransferError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
