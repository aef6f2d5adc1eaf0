import ArgumentParser
import Foundation
import StratusBench

/// `stratus bench`: drives a running server over loopback HTTP.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Benchmark a running server.",
        discussion: """
            Creates a fresh container on the server, then measures /healthz (the baseline), single-record creates \
            at 1 and 16 clients, 200-record batches, lookups by name, an indexed query returning 50 records, a filtered query sorted newest first (50 records), and a \
            full changes/zone sync and a fresh install's first sync of the same records into StratusKit's local store. Figures are printed with their ratio to the baseline of the same run.

            With --database, the command starts a server of its own on that PostgreSQL database (which must be empty \
            or hold only earlier benchmark data), benchmarks it, and stops it.
            """
    )

    @Option(help: "The server's URL.")
    var url: String = "http://127.0.0.1:8080"

    @Option(help: "The server's admin key (STRATUS_ADMIN_KEY); read from --data's admin.key when not given.")
    var adminKey: String?

    @Option(help: "The server's data folder, to read its admin key from.")
    var data: String = "./stratus-data"

    @Option(help: "Seconds each timed scenario runs.")
    var seconds: Double = 5

    @Option(help: "Records in the query and sync dataset.")
    var records: Int = 100_000

    @Option(help: "The server's process id, to report its peak memory.")
    var serverPID: Int32?

    @Option(help: "Where clients waiting for notifications connect: another node sharing --url's database, to time a notification from a save on one node to a client on another.")
    var listenURL: String?

    @Flag(help: "Run only the /healthz baseline and the notification scenarios.")
    var notificationsOnly = false

    @Flag(help: "Run only the /healthz baseline, the seeding, the full sync and the first sync into a local store.")
    var syncOnly = false

    @Flag(help: "Run only the /healthz baseline and webhooks' delivery latency (the server must run with --webhooks-allow-private).")
    var webhooksOnly = false

    @Flag(help: "Run only the /healthz baseline and creates with and without a beforeSave function.")
    var hooksOnly = false

    @Flag(help: "Run only an app's offline saves into its local store, one by one and in one batch, beside plain SQLite (needs no server).")
    var offlineSavesOnly = false

    @Option(help: "How many records the offline saves scenario saves each way.")
    var offlineSaves = 10_000

    @Option(help: "Start a server on this PostgreSQL database (postgres://...) and benchmark it, instead of --url.")
    var database: String?

    func run() async throws {
        if offlineSavesOnly {
            var options = Benchmark.Options(host: "127.0.0.1", port: 0, adminKey: "")
            options.offlineSavesOnly = true
            options.offlineSaves = offlineSaves
            print(try await Benchmark(options: options, log: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }).run().table)
            return
        }
        if let database {
            let server = try BenchServer.start(database: database)
            defer { server.stop() }
            var command = self
            command.database = nil
            command.url = server.url
            command.adminKey = server.adminKey
            command.serverPID = server.pid
            try await command.run()
            return
        }
        guard let components = URLComponents(string: url), let host = components.host else {
            throw ValidationError("--url must look like http://127.0.0.1:8080")
        }
        let key = adminKey ?? environmentValue(ServeSettings.adminKey.environmentVariable) ?? DataFolder(path: data).storedAdminKey()
        guard let key else { throw ValidationError("give --admin-key, or --data with the server's admin.key") }
        guard records >= 200, records % 200 == 0 else { throw ValidationError("--records must be a multiple of 200") }
        var options = Benchmark.Options(host: host, port: components.port ?? 80, adminKey: key, seconds: seconds, datasetSize: records, serverPID: serverPID)
        if let listenURL {
            guard let listen = URLComponents(string: listenURL), let listenHost = listen.host else {
                throw ValidationError("--listen-url must look like http://127.0.0.1:8081")
            }
            options.listenHost = listenHost
            options.listenPort = listen.port ?? 80
        }
        options.notificationsOnly = notificationsOnly
        options.syncOnly = syncOnly
        options.webhooksOnly = webhooksOnly
        options.hooksOnly = hooksOnly
        options.offlineSaves = offlineSaves
        let benchmark = Benchmark(
            options: options,
            log: { message in FileHandle.standardError.write(Data((message + "\n").utf8)) }
        )
        let report = try await benchmark.run()
        print(report.table)
    }
}
