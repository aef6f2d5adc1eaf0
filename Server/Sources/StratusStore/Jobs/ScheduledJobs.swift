import Foundation
import StratusModel

/// A job a container environment runs on a schedule: a function, or an event sent to a webhook endpoint.
public struct ScheduledJob: Sendable, Hashable {
    /// What a run does.
    public enum Target: Sendable, Hashable {
        /// Calls the container environment's function of this name (trigger `schedule`).
        case function(String)
        /// Queues a `job.run` event on this webhook endpoint, delivered (signed, retried) like every other event.
        case webhook(endpointID: String)

        /// As stored: `function:<name>` or `webhook:<endpoint id>`.
        public var stored: String {
            switch self {
            case .function(let name): "function:\(name)"
            case .webhook(let id): "webhook:\(id)"
            }
        }

        public init?(stored: String) {
            if stored.hasPrefix("function:") {
                self = .function(String(stored.dropFirst("function:".count)))
            } else if stored.hasPrefix("webhook:") {
                self = .webhook(endpointID: String(stored.dropFirst("webhook:".count)))
            } else {
                return nil
            }
        }
    }

    /// What happens to runs that fell due while no node was running.
    public enum MissedRuns: String, Sendable, Hashable, Codable, CaseIterable {
        /// They are dropped; the job next runs at its next time.
        case skip
        /// One run stands for all of them, as soon as a node is up.
        case runOnce
    }

    public var containerID: String
    public var environment: Environment
    public var name: String
    /// A cron expression (``CronSchedule``).
    public var schedule: String
    /// The IANA time zone the schedule is read in.
    public var timeZone: String
    public var target: Target
    public var missedRuns: MissedRuns
    public var isEnabled: Bool
    /// Milliseconds since 1970: when the next run falls due.
    public var nextRunAt: Int64
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        containerID: String, environment: Environment, name: String, schedule: String, timeZone: String = "UTC", target: Target,
        missedRuns: MissedRuns = .runOnce, isEnabled: Bool = true, nextRunAt: Int64, createdAt: Int64, updatedAt: Int64
    ) {
        self.containerID = containerID
        self.environment = environment
        self.name = name
        self.schedule = schedule
        self.timeZone = timeZone
        self.target = target
        self.missedRuns = missedRuns
        self.isEnabled = isEnabled
        self.nextRunAt = nextRunAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// One run of a job.
public struct ScheduledJobRun: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Codable {
        case running, succeeded, failed
        /// Fell due while no node ran, and the job skips missed runs.
        case skipped
        /// Handed to a webhook endpoint's queue (its delivery says the rest).
        case queued
    }

    public var containerID: String
    public var environment: Environment
    public var job: String
    /// Milliseconds since 1970: the time the run stands for (one per job and time, across every node).
    public var scheduledFor: Int64
    public var startedAt: Int64
    public var finishedAt: Int64?
    /// The node that ran it.
    public var node: String
    public var status: Status
    /// The start of the function's answer, the error, or the delivery queued.
    public var result: String
    /// How many due times this run stands for (more than one when runs were missed).
    public var missed: Int

    public init(
        containerID: String, environment: Environment, job: String, scheduledFor: Int64, startedAt: Int64, finishedAt: Int64? = nil,
        node: String, status: Status, result: String = "", missed: Int = 0
    ) {
        self.containerID = containerID
        self.environment = environment
        self.job = job
        self.scheduledFor = scheduledFor
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.node = node
        self.status = status
        self.result = result
        self.missed = missed
    }
}

/// Storage for scheduled jobs and their runs. A run is claimed by moving the job's next run time in a transaction
/// that checks it did not move already, so one node runs each due time however many look at it.
public protocol JobStore: Sendable {
    /// Creates or replaces a job.
    func saveScheduledJob(_ job: ScheduledJob) async throws
    /// - Throws: ``StorageError/Code/notFound``.
    func deleteScheduledJob(containerID: String, environment: Environment, name: String) async throws
    /// A container's jobs (every environment), by name.
    func scheduledJobs(containerID: String) async throws -> [ScheduledJob]
    /// Enabled jobs of every container whose next run is due at `now`.
    func dueScheduledJobs(now: Int64) async throws -> [ScheduledJob]
    /// Moves a job's next run from `expected` to `next`, recording `run` and queuing `delivery` when given, in one
    /// transaction; does nothing when the job's next run is no longer `expected` (another node claimed it).
    /// - Returns: whether this call moved it.
    func advanceScheduledJob(
        containerID: String, environment: Environment, name: String, from expected: Int64, to next: Int64, run: ScheduledJobRun?,
        delivery: PendingWebhookDelivery?
    ) async throws -> Bool
    /// Notes how a run ended.
    func finishScheduledRun(_ run: ScheduledJobRun) async throws
    /// A job's latest runs, newest first.
    func scheduledJobRuns(containerID: String, environment: Environment, job: String, limit: Int) async throws -> [ScheduledJobRun]
}
