import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The server at a glance, for the console's landing page: today's requests and errors, active users, storage,
/// the last backup, failing webhooks and mail waiting, over the containers the caller holds a role in.
extension AdminController {
    func registerOverviewRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get("overview", .anyOperator, use: overview)
    }

    /// How long the overview waits for the backup bucket's list before it answers without it.
    static let overviewBucketWait: Duration = .seconds(2)

    /// `GET /admin/1/overview`: ``ServerOverview``.
    @Sendable func overview(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        let now = ServerClock.now()
        let day = now / 86_400_000
        let minute = now / 60_000
        // The latest sample falls within two measurement intervals (at least an hour back, for a server just started).
        let samplesFrom = now - max(3_600_000, Int64(2 * server.configuration.usageInterval * 1000))
        let containers = try await server.store.containers().filter { actor.role(in: $0.id) != nil }.map(\.id).sorted()
        let waiting = try await server.store.waitingMail()
        var figures: [ServerOverview.ContainerFigures] = []
        var failing: [ServerOverview.FailingWebhook] = []
        var publicBytes: Int64 = 0, privateBytes: Int64 = 0
        var measuredAt: Int64?
        for containerID in containers {
            var container = ServerOverview.ContainerFigures(
                containerID: containerID, requestsToday: 0, errorsToday: 0, activeUsersToday: 0, mailWaiting: waiting[containerID] ?? 0
            )
            for environment in [Environment.development, .production] {
                for figures in try await server.store.telemetryMinutes(containerID: containerID, environment: environment, from: day * 1440, to: minute + 1) {
                    container.requestsToday += figures.requests
                    container.errorsToday += figures.errors
                }
                container.activeUsersToday += try await server.store.activeUsers(
                    containerID: containerID, environment: environment, from: day, to: day + 1
                )[day] ?? 0
                if let latest = try await server.store.storageHistory(
                    containerID: containerID, environment: environment, from: samplesFrom, to: now + 1
                ).last {
                    publicBytes += latest.publicBytes
                    privateBytes += latest.privateBytes
                    measuredAt = max(measuredAt ?? 0, latest.measuredAt)
                }
            }
            figures.append(container)
            for endpoint in try await server.store.webhookEndpoints(containerID: containerID) where endpoint.failingSince != nil || !endpoint.isEnabled {
                failing.append(ServerOverview.FailingWebhook(
                    containerID: containerID, id: endpoint.id, url: endpoint.url, enabled: endpoint.isEnabled,
                    failingSince: endpoint.failingSince, disabledReason: endpoint.disabledReason
                ))
            }
        }
        let overview = ServerOverview(
            day: day * 86_400_000, requestsToday: figures.reduce(0) { $0 + $1.requestsToday }, errorsToday: figures.reduce(0) { $0 + $1.errorsToday },
            activeUsersToday: figures.reduce(0) { $0 + $1.activeUsersToday }, publicBytes: publicBytes, privateBytes: privateBytes,
            storageMeasuredAt: measuredAt, backups: await backupsAtAGlance(), failingWebhooks: failing,
            mailWaiting: figures.reduce(0) { $0 + $1.mailWaiting }, smtpConfigured: server.configuration.smtp != nil, containers: figures
        )
        return try JSONResponse.make(encoding: overview)
    }

    /// The last backup: the newest in the bucket (asked for at most ``overviewBucketWait``, so that a bucket that
    /// does not answer never holds the page), else this node's latest run.
    private func backupsAtAGlance() async -> ServerOverview.Backups {
        guard let catalog = server.backups else { return ServerOverview.Backups(configured: false) }
        let run = catalog.latestRun()
        var glance = ServerOverview.Backups(
            configured: true, lastBackupAt: run?.state == .finished ? run?.startedAt : nil, latestRunState: run?.state.rawValue,
            problem: run?.state == .failed ? run?.message : nil
        )
        let listed: Result<[StoredBackup], any Error>? = await withTaskGroup(of: Result<[StoredBackup], any Error>?.self) { group in
            group.addTask {
                do { return .success(try await catalog.backups()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: Self.overviewBucketWait)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch listed {
        case .success(let backups):
            if let newest = backups.first?.takenAt { glance.lastBackupAt = max(glance.lastBackupAt ?? 0, newest) }
        case .failure(let error):
            glance.problem = glance.problem ?? "the bucket could not be listed: \(error)"
        case nil:
            glance.problem = glance.problem ?? "the bucket did not answer within 2 seconds"
        }
        return glance
    }
}
