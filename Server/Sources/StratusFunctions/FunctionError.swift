/// Why a module was refused or a call did not finish: the one error type of StratusFunctions.
public struct FunctionError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The module is not valid WebAssembly, is too big, or imports what the server does not offer.
        case invalidModule
        /// The module lacks an export the binding needs, or the export has the wrong signature.
        case missingExport
        /// The module trapped (`unreachable`, an access out of bounds, a division by zero, …).
        case trapped
        /// The call used its whole instruction budget.
        case instructionLimit
        /// The module asked for more memory than its limit.
        case memoryLimit
        /// The call ran past its time limit.
        case timeLimit
        /// The module wrote more output, logs or host requests than allowed.
        case outputLimit
        /// The module exited with a status other than 0.
        case exited
        /// The module's output is not the JSON its trigger expects.
        case invalidOutput
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
