import Foundation
import Hummingbird
import StratusModel
import StratusStore

/// Scheduled jobs in the admin API: made or replaced, listed with their latest runs, deleted.
extension AdminController {
    func registerJobRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/jobs", use: listJobs)
        group.put(":container/:environment/jobs/:job", use: saveJob)
        group.delete(":container/:environment/jobs/:job", use: deleteJob)
        group.get(":container/:environment/jobs/:job/runs", use: jobRuns)
    }

    /// A job's settings as the API takes them: a schedule and either `function` or `webhook` (an endpoint's ID).
    struct JobBody: Decodable {
        var schedule: String
        var timeZone: String?
        var function: String?
        var webhook: String?
        var missedRuns: ScheduledJob.MissedRuns?
        var enabled: Bool?
    }

    struct RunJSON: Encodable {
        var scheduledFor: Int64
        var started: Int64
        var finished: Int64?
        var node: String
        var status: ScheduledJobRun.Status
        var result: String
        var missedRuns: Int

        init(_ run: ScheduledJobRun) {
            scheduledFor = run.scheduledFor
            started = run.startedAt
            finished = run.finishedAt
            node = run.node
            status = run.status
            result = run.result
            missedRuns = run.missed
        }
    }

    struct JobJSON: Encodable {
        var name: String
        var environment: String
        var schedule: String
        var timeZone: String
        var function: String?
        var webhook: String?
        var missedRuns: ScheduledJob.MissedRuns
        var enabled: Bool
        var nextRun: Int64
        var lastRuns: [RunJSON]

        init(_ job: ScheduledJob, runs: [ScheduledJobRun]) {
            name = job.name
            environment = job.environment.rawValue
            schedule = job.schedule
            timeZone = job.timeZone
            switch job.target {
            case .function(let name): function = name
            case .webhook(let id): webhook = id
            }
            missedRuns = job.missedRuns
            enabled = job.isEnabled
            nextRun = job.nextRunAt
            lastRuns = runs.map(RunJSON.init)
        }
    }

    private struct JobsJSON: Encodable {
        var jobs: [JobJSON]
    }

    private struct RunsJSON: Encodable {
        var runs: [RunJSON]
    }

    /// `GET /admin/1/{container}/jobs`: every environment's jobs, each with its five latest runs.
    @Sendable func listJobs(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        var jobs: [JobJSON] = []
        for job in try await server.store.scheduledJobs(containerID: container.id) {
            let runs = try await server.store.scheduledJobRuns(containerID: container.id, environment: job.environment, job: job.name, limit: 5)
            jobs.append(JobJSON(job, runs: runs))
        }
        return try JSONResponse.make(encoding: JobsJSON(jobs: jobs))
    }

    /// `PUT /admin/1/{container}/{environment}/jobs/{name}` with ``JobBody``: its next run is the schedule's next time.
    @Sendable func saveJob(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try Self.functionName(try context.parameters.require("job"), what: "job")
        let body = try await RequestBody.decode(JobBody.self, from: request, limit: 16 * 1024)
        let timeZone = body.timeZone ?? "UTC"
        let schedule: CronSchedule
        do {
            schedule = try CronSchedule(body.schedule, timeZone: timeZone)
        } catch {
            throw APIError.badRequest("schedule: \(error)")
        }
        let now = Authenticator.now()
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
            missedRuns: body.missedRuns ?? .runOnce, isEnabled: body.enabled ?? true,
            nextRunAt: Int64((next.timeIntervalSince1970 * 1000).rounded()), createdAt: existing?.createdAt ?? now, updatedAt: now
        )
        try await server.store.saveScheduledJob(job)
        return try JSONResponse.make(encoding: JobJSON(job, runs: []), status: existing == nil ? .created : .ok)
    }

    @Sendable func deleteJob(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        try await server.store.deleteScheduledJob(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("job")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `GET …/jobs/{name}/runs?limit=`: newest first, up to 100.
    @Sendable func jobRuns(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let limit = min(max(request.uri.queryParameters["limit"].flatMap { Int(String($0)) } ?? 20, 1), 100)
        let runs = try await server.store.scheduledJobRuns(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            job: try context.parameters.require("job"), limit: limit
        )
        return try JSONResponse.make(encoding: RunsJSON(runs: runs.map(RunJSON.init)))
    }
}
