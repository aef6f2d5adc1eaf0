import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Scheduled jobs in the admin API: made or replaced, listed with their latest runs, deleted.
extension AdminController {
    func registerJobRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/jobs", .viewer, use: listJobs)
        group.put(":container/:environment/jobs/:job", .developer, use: saveJob)
        group.delete(":container/:environment/jobs/:job", .owner, use: deleteJob)
        group.get(":container/:environment/jobs/:job/runs", .viewer, use: jobRuns)
    }

    /// `GET /admin/1/{container}/jobs`: every environment's jobs, each with its five latest runs.
    @Sendable func listJobs(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        var jobs: [ScheduledJobInfo] = []
        for job in try await server.store.scheduledJobs(containerID: container.id) {
            let runs = try await server.store.scheduledJobRuns(containerID: container.id, environment: job.environment, job: job.name, limit: 5)
            jobs.append(ScheduledJobInfo(job, runs: runs))
        }
        return try JSONResponse.make(encoding: ScheduledJobsResponse(jobs: jobs))
    }

    /// `PUT /admin/1/{container}/{environment}/jobs/{name}` with ``ScheduledJobSettings``: its next run is the schedule's next time.
    @Sendable func saveJob(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try FunctionRules.name(try context.parameters.require("job"), of: "job")
        let body = try await RequestBody.decode(ScheduledJobSettings.self, from: request, limit: RequestLimits.formBody)
        let missedRuns = try body.missedRuns.map { text in
            guard let missed = ScheduledJob.MissedRuns(rawValue: text) else { throw APIError.badRequest("missedRuns must be skip or runOnce, not '\(text)'") }
            return missed
        } ?? .runOnce
        let timeZone = body.timeZone ?? "UTC"
        let schedule: CronSchedule
        do {
            schedule = try CronSchedule(body.schedule, timeZone: timeZone)
        } catch {
            throw APIError.badRequest("schedule: \(error)")
        }
        let now = ServerClock.now()
        guard let next = schedule.next(after: Date(timeIntervalSince1970: Double(now) / 1000)) else {
            throw APIError.badRequest("the schedule \(body.schedule) never falls due")
        }
        let target: ScheduledJob.Target
        switch (body.function, body.webhook) {
        case (let function?, nil):
            let binding = try await server.store.functionBindings(containerID: container.id)
                .first { $0.environment == environment && $0.name == function }
            guard binding?.trigger == .schedule else {
                throw APIError.badRequest("\(container.id) has no function \(function) with the trigger schedule in \(environment.rawValue)")
            }
            target = .function(function)
        case (nil, let webhook?):
            guard let endpoint = try await server.store.webhookEndpoint(id: webhook, containerID: container.id),
                endpoint.environment == environment, FunctionBinding.functionName(inEndpointURL: endpoint.url) == nil
            else {
                throw APIError.badRequest("\(container.id) has no webhook \(webhook) in \(environment.rawValue)")
            }
            target = .webhook(endpointID: webhook)
        default:
            throw APIError.badRequest("a job calls either a function or a webhook")
        }
        let existing = try await server.store.scheduledJobs(containerID: container.id).first { $0.environment == environment && $0.name == name }
        let job = ScheduledJob(
            containerID: container.id, environment: environment, name: name, schedule: body.schedule, timeZone: timeZone, target: target,
            missedRuns: missedRuns, isEnabled: body.enabled ?? true,
            nextRunAt: Int64((next.timeIntervalSince1970 * 1000).rounded()), createdAt: existing?.createdAt ?? now, updatedAt: now
        )
        try await server.store.saveScheduledJob(job)
        return try JSONResponse.make(encoding: ScheduledJobInfo(job, runs: []), status: existing == nil ? .created : .ok)
    }

    @Sendable func deleteJob(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        try await server.store.deleteScheduledJob(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("job")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `GET …/jobs/{name}/runs?limit=`: newest first, up to 100.
    @Sendable func jobRuns(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let limit = min(max(request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 20, 1), 100)
        let runs = try await server.store.scheduledJobRuns(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            job: try context.parameters.require("job"), limit: limit
        )
        return try JSONResponse.make(encoding: ScheduledJobRunsResponse(runs: runs.map(ScheduledJobRunInfo.init)))
    }
}

extension ScheduledJobInfo {
    /// A stored job and its latest runs, as the admin API answers them.
    init(_ job: ScheduledJob, runs: [ScheduledJobRun]) {
        var function: String?
        var webhook: String?
        switch job.target {
        case .function(let name): function = name
        case .webhook(let id): webhook = id
        }
        self.init(
            name: job.name, environment: job.environment.rawValue, schedule: job.schedule, timeZone: job.timeZone, function: function,
            webhook: webhook, missedRuns: job.missedRuns.rawValue, enabled: job.isEnabled, nextRun: job.nextRunAt,
            lastRuns: runs.map(ScheduledJobRunInfo.init)
        )
    }
}

extension ScheduledJobRunInfo {
    /// A stored run, as the admin API answers it.
    init(_ run: ScheduledJobRun) {
        self.init(
            scheduledFor: run.scheduledFor, started: run.startedAt, finished: run.finishedAt, node: run.node, status: run.status.rawValue,
            result: run.result, missedRuns: run.missed
        )
    }
}
