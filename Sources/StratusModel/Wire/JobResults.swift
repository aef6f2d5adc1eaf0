/// `PUT /admin/1/{container}/{environment}/jobs/{name}`: a scheduled job's settings, a schedule and either
/// `function` (a function bound with the trigger `schedule`) or `webhook` (an endpoint's ID).
public struct ScheduledJobSettings: Sendable, Hashable, Codable {
    /// Cron's five fields, or six with seconds first.
    public var schedule: String
    /// The IANA time zone the schedule is read in; `UTC` when left out.
    public var timeZone: String?
    public var function: String?
    public var webhook: String?
    /// `skip` or `runOnce` (the default): what becomes of runs that fell due while no node was up.
    public var missedRuns: String?
    /// `true` when left out.
    public var enabled: Bool?

    public init(schedule: String, timeZone: String? = nil, function: String? = nil, webhook: String? = nil, missedRuns: String? = nil, enabled: Bool? = nil) {
        self.schedule = schedule
        self.timeZone = timeZone
        self.function = function
        self.webhook = webhook
        self.missedRuns = missedRuns
        self.enabled = enabled
    }
}

/// A scheduled job as the admin API answers it, with its latest runs.
public struct ScheduledJobInfo: Sendable, Hashable, Codable {
    public var name: String
    public var environment: String
    public var schedule: String
    public var timeZone: String
    public var function: String?
    public var webhook: String?
    public var missedRuns: String
    public var enabled: Bool
    /// Milliseconds since 1970.
    public var nextRun: Int64
    public var lastRuns: [ScheduledJobRunInfo]

    public init(
        name: String, environment: String, schedule: String, timeZone: String, function: String?, webhook: String?, missedRuns: String,
        enabled: Bool, nextRun: Int64, lastRuns: [ScheduledJobRunInfo]
    ) {
        self.name = name
        self.environment = environment
        self.schedule = schedule
        self.timeZone = timeZone
        self.function = function
        self.webhook = webhook
        self.missedRuns = missedRuns
        self.enabled = enabled
        self.nextRun = nextRun
        self.lastRuns = lastRuns
    }
}

/// One run of a scheduled job.
public struct ScheduledJobRunInfo: Sendable, Hashable, Codable {
    /// When it fell due, in milliseconds since 1970.
    public var scheduledFor: Int64
    public var started: Int64
    public var finished: Int64?
    /// The node that ran it.
    public var node: String
    /// `running`, `succeeded`, `failed`, `skipped`, or `queued` (handed to a webhook endpoint, whose delivery says the rest).
    public var status: String
    /// The start of the answer, or the error.
    public var result: String
    /// Runs that fell due while no node was up and that this one stands for.
    public var missedRuns: Int

    public init(scheduledFor: Int64, started: Int64, finished: Int64?, node: String, status: String, result: String, missedRuns: Int) {
        self.scheduledFor = scheduledFor
        self.started = started
        self.finished = finished
        self.node = node
        self.status = status
        self.result = result
        self.missedRuns = missedRuns
    }
}

/// `GET /admin/1/{container}/jobs`: every environment's jobs, each with its five latest runs.
public struct ScheduledJobsResponse: Sendable, Hashable, Codable {
    public var jobs: [ScheduledJobInfo]

    public init(jobs: [ScheduledJobInfo]) {
        self.jobs = jobs
    }
}

/// `GET /admin/1/{container}/{environment}/jobs/{name}/runs`: newest first.
public struct ScheduledJobRunsResponse: Sendable, Hashable, Codable {
    public var runs: [ScheduledJobRunInfo]

    public init(runs: [ScheduledJobRunInfo]) {
        self.runs = runs
    }
}
