/// An error thrown by a store: the only error type of `StratusStore`.
///
/// The message is meant for the client: it may name record types, fields and zones, never field
/// values or secrets. The underlying backend error is kept for logs only.
public struct StorageError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A broad, stable classification. New codes can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case notFound, zoneNotFound, conflict, alreadyExists, validatingReference, invalidArgument, uniqueViolation
            case accessDenied, limitExceeded, atomicFailure, unavailable, internalFailure
        }
        private let base: Base
        /// A record, container or account does not exist.
        public static let notFound = Code(base: .notFound)
        /// The zone named in the request does not exist.
        public static let zoneNotFound = Code(base: .zoneNotFound)
        /// The `recordChangeTag` sent is not the record's current one.
        public static let conflict = Code(base: .conflict)
        /// Something with that name exists already.
        public static let alreadyExists = Code(base: .alreadyExists)
        /// A `VALIDATE` reference points at a missing record, or protects a record from deletion.
        public static let validatingReference = Code(base: .validatingReference)
        /// The request is not valid: a wrong type, an unknown field in production, a bad token.
        public static let invalidArgument = Code(base: .invalidArgument)
        /// Another record holds a value a `UNIQUE` field allows only once.
        public static let uniqueViolation = Code(base: .uniqueViolation)
        /// The caller may not do this.
        public static let accessDenied = Code(base: .accessDenied)
        /// A size or count limit was exceeded.
        public static let limitExceeded = Code(base: .limitExceeded)
        /// Another operation of the same atomic batch failed.
        public static let atomicFailure = Code(base: .atomicFailure)
        /// The store cannot answer now; retrying later may work.
        public static let unavailable = Code(base: .unavailable)
        /// Anything unexpected.
        public static let internalFailure = Code(base: .internalFailure)
        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    /// The backend error behind this one, for logs only.
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { "\(code): \(message)" }

    /// The description with the backend error behind it, for logs.
    public var debugDescription: String {
        guard let underlying else { return description }
        return "\(description) (\(String(reflecting: underlying)))"
    }
}

extension StorageError {
    /// Wraps a model validation error as an invalid argument.
    public init(_ error: ModelError) {
        self.init(.invalidArgument, error.message)
    }
}

import StratusModel
