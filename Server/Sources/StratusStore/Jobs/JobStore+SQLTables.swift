import Foundation
import StratusModel

/// Scheduled jobs and their runs, written once over any backend's tables (``SQLTables``).
extension JobStore where Self: SQLTables {
    public func saveScheduledJob(_ job: ScheduledJob) async throws {
        try await transaction(
            [
                """
                INSERT INTO scheduled_jobs (container_id, environment, name, schedule, time_zone, target, missed_runs, enabled, next_run_at,
                    created_at, updated_at)
                VALUES (\(.text(job.containerID)), \(.text(job.environment.rawValue)), \(.text(job.name)), \(.text(job.schedule)), \
                \(.text(job.timeZone)), \(.text(job.target.stored)), \(.text(job.missedRuns.rawValue)), \(.bool(job.isEnabled)), \
                \(.integer(job.nextRunAt)), \(.integer(job.createdAt)), \(.integer(job.updatedAt)))
                ON CONFLICT (container_id, environment, name) DO UPDATE SET schedule = excluded.schedule, time_zone = excluded.time_zone, \
                target = excluded.target, missed_runs = excluded.missed_runs, enabled = excluded.enabled, next_run_at = excluded.next_run_at, \
                updated_at = excluded.updated_at
                """,
            ],
            emitting: [.jobsChanged(containerID: job.containerID)]
        )
    }

    public func deleteScheduledJob(containerID: String, environment: Environment, name: String) async throws {
        let key: SQLFragment = """
            container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue))
            """
        try await transaction(
            [
                "DELETE FROM scheduled_jobs WHERE \(key) AND name = \(.text(name)) RETURNING name",
                "DELETE FROM scheduled_job_runs WHERE \(key) AND job = \(.text(name))",
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "the container has no job \(name) in \(environment.rawValue)") }
                return [.jobsChanged(containerID: containerID)]
            }
        )
    }

    public func scheduledJobs(containerID: String) async throws -> [ScheduledJob] {
        try await jobs(where: "container_id = \(.text(containerID))")
    }

    public func dueScheduledJobs(now: Int64) async throws -> [ScheduledJob] {
        try await jobs(where: "enabled = \(.bool(true)) AND next_run_at <= \(.integer(now))")
    }

    private func jobs(where condition: SQLFragment) async throws -> [ScheduledJob] {
        try await rows("""
            SELECT container_id, environment, name, schedule, time_zone, target, missed_runs, enabled, next_run_at, created_at, updated_at
            FROM scheduled_jobs WHERE \(condition) ORDER BY container_id, environment, name
            """).compactMap { row in
            guard let target = ScheduledJob.Target(stored: try row.text("target")) else { return nil }
            return ScheduledJob(
                containerID: try row.text("container_id"), environment: Environment(rawValue: try row.text("environment")) ?? .development,
                name: try row.text("name"), schedule: try row.text("schedule"), timeZone: try row.text("time_zone"), target: target,
                missedRuns: ScheduledJob.MissedRuns(rawValue: try row.text("missed_runs")) ?? .runOnce, isEnabled: try row.bool("enabled"),
                nextRunAt: try row.integer("next_run_at"), createdAt: try row.integer("created_at"), updatedAt: try row.integer("updated_at")
            )
        }
    }

    public func advanceScheduledJob(
        containerID: String, environment: Environment, name: String, from expected: Int64, to next: Int64, run: ScheduledJobRun?,
        delivery: PendingWebhookDelivery?
    ) async throws -> Bool {
        try await transaction { transaction in
            let moved = try await transaction.rows("""
                UPDATE scheduled_jobs SET next_run_at = \(.integer(next))
                WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND name = \(.text(name)) \
                AND next_run_at = \(.integer(expected)) RETURNING name
                """)
            guard !moved.isEmpty else { return false }
            if let run {
                try await transaction.rows("""
                    INSERT INTO scheduled_job_runs (container_id, environment, job, scheduled_for, started_at, finished_at, node, status, result, missed)
                    VALUES (\(.text(run.containerID)), \(.text(run.environment.rawValue)), \(.text(run.job)), \(.integer(run.scheduledFor)), \
                    \(.integer(run.startedAt)), \(SQLValue(run.finishedAt)), \(.text(run.node)), \(.text(run.status.rawValue)), \
                    \(.text(run.result)), \(.integer(Int64(run.missed))))
                    """)
                // Each job keeps its latest hundred runs.
                try await transaction.rows("""
                    DELETE FROM scheduled_job_runs WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
                    AND job = \(.text(name)) AND scheduled_for < (
                        SELECT scheduled_for FROM scheduled_job_runs WHERE container_id = \(.text(containerID)) \
                        AND environment = \(.text(environment.rawValue)) AND job = \(.text(name))
                        ORDER BY scheduled_for DESC LIMIT 1 OFFSET 99)
                    """)
            }
            if let delivery {
                let first = try await transaction.positions(1)
                for statement in WebhookTables.inserts([delivery], first: first, now: run?.startedAt ?? next) {
                    try await transaction.rows(statement)
                }
                transaction.emit(.webhooksQueued)
            }
            return true
        }
    }

    public func finishScheduledRun(_ run: ScheduledJobRun) async throws {
        try await execute(["""
            UPDATE scheduled_job_runs SET finished_at = \(SQLValue(run.finishedAt)), status = \(.text(run.status.rawValue)), \
            result = \(.text(String(run.result.prefix(1000))))
            WHERE container_id = \(.text(run.containerID)) AND environment = \(.text(run.environment.rawValue)) AND job = \(.text(run.job)) \
            AND scheduled_for = \(.integer(run.scheduledFor))
            """])
    }

    public func scheduledJobRuns(containerID: String, environment: Environment, job: String, limit: Int) async throws -> [ScheduledJobRun] {
        try await rows("""
            SELECT container_id, environment, job, scheduled_for, started_at, finished_at, node, status, result, missed FROM scheduled_job_runs
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND job = \(.text(job))
            ORDER BY scheduled_for DESC LIMIT \(.integer(Int64(limit)))
            """).map { row in
            ScheduledJobRun(
                containerID: try row.text("container_id"), environment: Environment(rawValue: try row.text("environment")) ?? .development,
                job: try row.text("job"), scheduledFor: try row.integer("scheduled_for"), startedAt: try row.integer("started_at"),
                finishedAt: try row.optionalInteger("finished_at"), node: try row.text("node"),
                status: ScheduledJobRun.Status(rawValue: try row.text("status")) ?? .failed, result: try row.text("result"),
                missed: Int(try row.integer("missed"))
            )
        }
    }
}
