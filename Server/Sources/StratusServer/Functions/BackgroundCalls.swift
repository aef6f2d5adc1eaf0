import Foundation
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// Calls of functions that no request waits for: `afterSave` functions for their queued events (from the webhook
/// sender, so with its order, retries and delivery list), and functions of scheduled jobs. Without a caller, they
/// act as the role their binding names, or as nobody.
struct BackgroundCalls: BackgroundFunctions {
    let server: ServerState

    /// Runs the `afterSave` function `name` for one queued event: like a webhook's answer, a status (200 when the
    /// function ran to its end) and the start of its answer or error.
    func afterSave(_ delivery: WebhookDelivery, function name: String) async -> (status: Int, response: String) {
        do {
            guard let binding = try await server.functions.binding(containerID: delivery.containerID, environment: delivery.environment, name: name),
                binding.trigger == .afterSave
            else {
                return (0, "no afterSave function \(name)")
            }
            let result = try await run(binding, input: FunctionInputs.afterSave(binding, eventID: delivery.eventID, event: delivery.body))
            if let refusal = Self.refusal(in: result.output) { return (500, refusal) }
            return (200, String(String(decoding: result.output, as: UTF8.self).prefix(500)))
        } catch let failure as FunctionFailure {
            return (500, failure.error.message)
        } catch {
            return (0, APIError(translating: error).reason)
        }
    }

    /// Runs a scheduled job's function: whether it ran to its end, and the start of its answer or its error.
    func scheduled(_ job: ScheduledJob, function name: String, scheduledFor: Int64, missed: Int) async -> (succeeded: Bool, result: String) {
        do {
            guard let binding = try await server.functions.binding(containerID: job.containerID, environment: job.environment, name: name),
                binding.trigger == .schedule
            else {
                return (false, "no function \(name) with the trigger schedule")
            }
            let result = try await run(binding, input: FunctionInputs.schedule(binding, job: job.name, scheduledFor: scheduledFor, missed: missed))
            if let refusal = Self.refusal(in: result.output) { return (false, refusal) }
            return (true, String(String(decoding: result.output, as: UTF8.self).prefix(500)))
        } catch let failure as FunctionFailure {
            return (false, failure.error.message)
        } catch {
            return (false, APIError(translating: error).reason)
        }
    }

    private struct Refusal: Decodable {
        var serverErrorCode: String
        var reason: String?
    }

    /// An answer that is a CloudKit error (`serverErrorCode`, `reason`) fails the call: `afterSave` events are
    /// retried, and the run is noted as failed.
    static func refusal(in output: [UInt8]) -> String? {
        guard let refusal = try? JSONDecoder().decode(Refusal.self, from: Data(output)) else { return nil }
        return "\(refusal.serverErrorCode): \(refusal.reason ?? "the function answered an error")"
    }

    private func run(_ binding: FunctionBinding, input: [UInt8]) async throws -> FunctionResult {
        let container = try await server.authenticator.container(binding.containerID)
        let host = RecordsHost(
            server: server, container: container, environment: binding.environment,
            identity: FunctionIdentity.of(binding, caller: nil, callerRoles: []),
            baseURL: server.configuration.publicURL ?? "http://localhost", depth: 0
        )
        return try await server.functions.run(binding, input: input, host: host)
    }
}
