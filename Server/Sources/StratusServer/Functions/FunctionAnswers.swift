import Foundation
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// What a function's answer means, per trigger, and how its failures are reported.
enum FunctionAnswers {
    enum BeforeSaveDecision: Sendable {
        case accept
        case setFields([String: FieldInput])
        case refuse(StorageError)
    }

    private struct Answer: Decodable {
        var serverErrorCode: String?
        var reason: String?
        var fields: [String: FieldInput]?
    }

    /// The error codes a function may refuse with, as the store names them; others become `BAD_REQUEST`.
    static func storageCode(_ serverErrorCode: String) -> StorageError.Code {
        switch serverErrorCode {
        case "ACCESS_DENIED": .accessDenied
        case "CONFLICT": .conflict
        case "EXISTS": .alreadyExists
        case "NOT_FOUND": .notFound
        case "VALIDATING_REFERENCE_ERROR": .validatingReference
        case "UNIQUE_FIELD_ERROR": .uniqueViolation
        default: .invalidArgument
        }
    }

    static func beforeSave(_ binding: FunctionBinding, input: [UInt8], host: RecordsHost, server: ServerState) async -> BeforeSaveDecision {
        let result: FunctionResult
        do {
            result = try await server.functions.run(binding, input: input, host: host)
        } catch {
            return .refuse(StorageError(.invalidArgument, "the beforeSave function \(binding.name) failed: \(error.error.message)"))
        }
        let output = result.output.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if output.isEmpty { return .accept }
        guard let answer = try? RequestBody.decode(Answer.self, from: Array(output)) else {
            return .refuse(StorageError(
                .invalidArgument, "the beforeSave function \(binding.name) answered what is not a JSON object of fields or an error"
            ))
        }
        if let code = answer.serverErrorCode {
            return .refuse(StorageError(storageCode(code), answer.reason ?? "the beforeSave function \(binding.name) refused the record"))
        }
        if let fields = answer.fields { return .setFields(fields) }
        return .accept
    }
}
