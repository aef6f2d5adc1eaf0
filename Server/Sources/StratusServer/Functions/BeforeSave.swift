import Foundation
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// Runs the `beforeSave` functions bound to the types of the records a batch saves, in the write path: each sees the
/// operation and answers nothing or `{}` to accept, `{"fields": {…}}` to set fields before the save, or
/// `{"serverErrorCode": …, "reason": …}` to refuse, which becomes that record's error. A function that fails refuses
/// the record (`BAD_REQUEST`, saying why): a write is never let through unchecked.
struct BeforeSave: BeforeSaveHook {
    let call: DatabaseCall
    let server: ServerState
    /// How many functions are running around this write (a host write from a `beforeSave` function runs others).
    let depth: Int

    func run(_ operations: [RecordOperation], zone: ZoneRef) async throws -> BeforeSaveOutcome {
        try await Self.run(operations, zone: zone, call: call, server: server, depth: depth)
    }

    /// Operations that save a record's fields (deletions run no `beforeSave`).
    static func savesFields(_ type: RecordOperationType) -> Bool {
        switch type {
        case .delete, .forceDelete: false
        default: true
        }
    }

    static func run(
        _ operations: [RecordOperation], zone: ZoneRef, call: DatabaseCall, server: ServerState, depth: Int
    ) async throws -> BeforeSaveOutcome {
        var outcome = BeforeSaveOutcome(operations: operations, refusals: [:])
        let container = call.authentication.container.id
        let environment = call.authentication.environment
        // Most writes meet no function: one cached read answers that.
        let bound = try await server.functions.bindings(containerID: container)
        guard bound.contains(where: { $0.trigger == .beforeSave && $0.isEnabled && $0.environment == environment }) else { return outcome }
        for (index, operation) in operations.enumerated() where savesFields(operation.type) {
            guard let recordType = operation.recordType else { continue }
            let functions = try await server.functions.beforeSave(
                containerID: container, environment: environment, database: call.scope, recordType: recordType
            )
            for binding in functions {
                let input = FunctionInputs.beforeSave(
                    outcome.operations[index], zone: zone, caller: call.authentication.userRecordName, database: call.scope, binding: binding
                )
                let host = RecordsHost(
                    server: server, container: call.authentication.container, environment: environment,
                    identity: FunctionIdentity.of(binding, caller: call.authentication.userRecordName, callerRoles: call.roles),
                    baseURL: call.baseURL, depth: depth
                )
                switch await FunctionAnswers.beforeSave(binding, input: input, host: host, server: server) {
                case .accept:
                    break
                case .setFields(let fields):
                    var changed = outcome.operations[index]
                    changed.fields = (changed.fields ?? [:]).merging(fields) { _, new in new }
                    outcome.operations[index] = changed
                case .refuse(let error):
                    outcome.refusals[index] = error
                }
                if outcome.refusals[index] != nil { break }
            }
        }
        return outcome
    }
}
