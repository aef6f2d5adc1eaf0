import Foundation
import Logging
import ServiceLifecycle
import StratusModel
import StratusStore

/// Runs containers' scheduled jobs. Every node looks for due jobs each ``ServerConfiguration/jobPollInterval``
/// (and when a job changes); a due time is claimed in the store by moving the job's next run, so one node runs it
/// however many look. Runs that fell due while no node was up are skipped or run once, as the job says.
package final class JobScheduler: Service, Sendable {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let functions: any BackgroundFunctions
    package let logger: Logger
    private let wakeUps: StoreWakeUps

    /// How late a due time may be found and still count as on time (later ones were missed).
    package static let grace: Int64 = 60_000

    package init(store: any Store, configuration: ServerConfiguration, functions: any BackgroundFunctions, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.functions = functions
        self.logger = logger
        wakeUps = StoreWakeUps(store: store) { event in
            if case .jobsChanged = event { true } else { false }
        }
    }

    package func run() async throws {
        await wakeUps.run(every: .milliseconds(Int64(configuration.jobPollInterval * 1000))) { await self.runDue() }
    }

    /// Claims and runs every job due now.
    package func runDue() async {
        do {
            let now = ServerClock.now()
            let due = try await store.dueScheduledJobs(now: now)
            await withTaskGroup(of: Void.self) { group in
                for job in due { group.addTask { await self.runIfClaimed(job, now: now) } }
            }
        } catch {
            logger.warning("scheduled jobs could not be read", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    /// What a due job stands for at `now`: the latest due time, how many earlier ones were passed over, and the next.
    package static func plan(_ job: ScheduledJob, now: Int64) -> (latest: Int64, earlier: Int, next: Int64)? {
        guard let schedule = try? CronSchedule(job.schedule, timeZone: job.timeZone) else { return nil }
        var latest = job.nextRunAt
        var earlier = 0
        while earlier < 100_000, let following = schedule.next(after: date(latest)).map(milliseconds), following <= now {
            latest = following
            earlier += 1
        }
        let next = schedule.next(after: date(now)).map(milliseconds) ?? Int64.max / 4
        return (latest, earlier, next)
    }

    private func runIfClaimed(_ job: ScheduledJob, now: Int64) async {
        guard let plan = Self.plan(job, now: now) else {
            logger.warning("a job's schedule no longer reads", metadata: ["stratus.job": "\(job.containerID)/\(job.name)"])
            return
        }
        let onTime = now - plan.latest <= Self.grace
        let missed = plan.earlier + (onTime ? 0 : 1)
        let runs = job.missedRuns == .runOnce || onTime
        var run = ScheduledJobRun(
            containerID: job.containerID, environment: job.environment, job: job.name, scheduledFor: plan.latest, startedAt: now,
            node: configuration.nodeName, status: runs ? .running : .skipped, missed: missed
        )
        var delivery: PendingWebhookDelivery?
        if runs, case .webhook(let endpointID) = job.target {
            run.status = .queued
            run.finishedAt = now
            run.result = "queued on the webhook endpoint \(endpointID)"
            delivery = Self.event(job, endpointID: endpointID, scheduledFor: plan.latest, missed: missed, now: now)
        }
        if !runs {
            run.finishedAt = now
            run.result = "\(missed) run(s) fell due while no node was up; this job skips missed runs"
        }
        do {
            let claimed = try await store.advanceScheduledJob(
                containerID: job.containerID, environment: job.environment, name: job.name, from: job.nextRunAt, to: plan.next, run: run,
                delivery: delivery
            )
            guard claimed, runs, case .function(let name) = job.target else { return }
            let outcome = await functions.scheduled(job, function: name, scheduledFor: plan.latest, missed: missed)
            run.status = outcome.succeeded ? .succeeded : .failed
            run.result = outcome.result
            run.finishedAt = ServerClock.now()
            try await store.finishScheduledRun(run)
        } catch {
            logger.warning("a scheduled job could not run", metadata: [
                "stratus.job": "\(job.containerID)/\(job.name)", "stratus.error": "\(String(reflecting: error))",
            ])
        }
    }

    /// The `job.run` event a webhook endpoint receives; its ID is the same for every node (one per job and due time).
    package static func event(_ job: ScheduledJob, endpointID: String, scheduledFor: Int64, missed: Int, now: Int64) -> PendingWebhookDelivery {
        let eventID = "job_" + Tokens.sha256Hex("\(job.containerID)/\(job.environment.rawValue)/\(job.name)/\(scheduledFor)").prefix(24)
        let data: [String: Any] = [
            "containerIdentifier": job.containerID, "environment": job.environment.rawValue, "job": job.name, "missedRuns": missed,
            "scheduledFor": WebhookDelivery.timestamp(scheduledFor),
        ]
        return PendingWebhookDelivery(
            endpointID: endpointID, containerID: job.containerID, environment: job.environment, orderingKey: "job.\(job.name)",
            eventID: String(eventID), eventType: "job.run", body: WebhookDelivery.eventBody(type: "job.run", data: data, now: now)
        )
    }

    private static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
