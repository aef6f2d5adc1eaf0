import StratusModel
import StratusStore

/// Functions that no request waits for, as the webhook sender and the job scheduler call them: the server runs
/// them with WebAssembly (its `BackgroundCalls`).
package protocol BackgroundFunctions: Sendable {
    /// Runs the `afterSave` function `name` for one queued event: like a webhook's answer, a status (200 when the
    /// function ran to its end) and the start of its answer or error.
    func afterSave(_ delivery: WebhookDelivery, function name: String) async -> (status: Int, response: String)

    /// Runs a scheduled job's function: whether it ran to its end, and the start of its answer or its error.
    func scheduled(_ job: ScheduledJob, function name: String, scheduledFor: Int64, missed: Int) async -> (succeeded: Bool, result: String)
}
