import StratusServices
import Hummingbird
import StratusModel

/// The server's backups to a bucket, for administrators (docs/backups.md#backups-to-a-bucket).
extension AdminController {
    func registerBackupRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get("backups", .administrator, use: listBackups)
        group.post("backups", .administrator, use: startBackup)
    }

    /// `GET /admin/1/backups`: `{"configured": false}`, or the schedule, the latest run and the backups in the bucket,
    /// newest first; `bucketError` says why the bucket could not be listed.
    @Sendable func listBackups(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        struct Answer: Encodable {
            var configured: Bool
            var schedule: BackupSchedule?
            var latestRun: BackupRun?
            var backups: [StoredBackup]?
            var bucketError: String?
        }
        guard let catalog = server.backups else { return try JSONResponse.make(encoding: Answer(configured: false)) }
        var answer = Answer(configured: true, schedule: catalog.schedule)
        do {
            answer.backups = try await catalog.backups()
        } catch {
            answer.bucketError = "\(error)"
        }
        answer.latestRun = catalog.latestRun()
        return try JSONResponse.make(encoding: answer)
    }

    /// `POST /admin/1/backups`: starts a backup now (`202`, with the run); `409 EXISTS` while one runs.
    @Sendable func startBackup(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        guard let catalog = server.backups else {
            throw APIError(.notFound, "backups to a bucket are not set up on this server (--backup-bucket; docs/backups.md)")
        }
        guard catalog.startNow() else { throw APIError(.exists, "a backup is being made; wait for it to end") }
        return try JSONResponse.make(encoding: catalog.latestRun(), status: .accepted)
    }
}
