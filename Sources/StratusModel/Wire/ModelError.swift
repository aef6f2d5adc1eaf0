/// An error in a value received on the wire: the only error type of `StratusModel`.
///
/// The message is written for the client and names what was expected.
public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A broad classification that can grow without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidValue, invalidRequest, invalidToken, invalidSchema
        }
        private let base: Base
        /// A field value does not match its type.
        public static let invalidValue = Code(base: .invalidValue)
        /// A request body is malformed or inconsistent.
        public static let invalidRequest = Code(base: .invalidRequest)
        /// A sync token or continuation marker cannot be read.
        public static let invalidToken = Code(base: .invalidToken)
        /// Schema text does not follow the schema language; the message names the line and column.
        public static let invalidSchema = Code(base: .invalidSchema)
        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
