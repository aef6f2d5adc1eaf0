import Foundation
import StratusStoreTesting
import StratusTestSupport
import Synchronization
import Testing

/// `stratus backup` of a running server under a write load, and `stratus restore` into a folder a new server
/// starts on.
@Suite(.serialized) struct BackupEndToEndTests {
    /// The writers' shared notes: each acknowledged save with when its answer came, and when to stop.
    final class WriteLog: Sendable {
        let acknowledged = Mutex<[(name: String, at: ContinuousClock.Instant)]>([])
        let stop = Atomic<Bool>(false)
    }

    @Test("a backup taken under 16 writers holds every write acknowledged before it began; the restored server starts and serves it, assets included")
    func backupUnderLoad() async throws {
        let folder = EndToEndTests.temporaryFolder()
        let restoredFolder = EndToEndTests.temporaryFolder()
        let archive = EndToEndTests.temporaryFolder() + ".tar"
        defer {
            for path in [folder, restoredFolder, archive] { try? FileManager.default.removeItem(atPath: path) }
        }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"], backend: .sqlite)
        try await server.start()
        defer { server.stop() }
        let client = try await AssetEndToEndTests.signUp(on: server)
        let file = GeneratedFile(size: 300_000)
        let download = try await client.attach(try await client.upload(file, through: StreamingHTTP(port: server.port)), to: "with-photo")

        // 16 writers save records one at a time; each acknowledged save is noted with when its answer came.
        let log = WriteLog()
        let writers = (0..<16).map { writer in
            Task {
                var number = 0
                while !log.stop.load(ordering: .relaxed) {
                    let name = "w\(writer)-\(number)"
                    number += 1
                    let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":\#(number)}}}}]}"#
                    guard (try? await client.post("records/modify", body)) != nil else { continue }
                    log.acknowledged.withLock { $0.append((name, ContinuousClock.now)) }
                }
            }
        }
        // The backup begins once the load is under way: 160 writes acknowledged (however long a loaded machine takes).
        try await Polling.until("160 writes are acknowledged", within: 60, every: .milliseconds(100)) { log.acknowledged.withLock { $0.count } >= 160 }
        let began = ContinuousClock.now
        let (status, output) = try await EndToEndTests.run(["backup", "--data", folder, "--out", archive])
        // Writes go on after the backup ended, so that the archive is seen to hold none of them.
        let afterBackup = log.acknowledged.withLock { $0.count }
        try await Polling.until("20 more writes are acknowledged", within: 60, every: .milliseconds(20)) {
            log.acknowledged.withLock { $0.count } >= afterBackup + 20
        }
        log.stop.store(true, ordering: .relaxed)
        for writer in writers { await writer.value }
        #expect(status == 0, "\(output)")
        let before = log.acknowledged.withLock { $0.filter { $0.at < began }.map(\.name) }
        let total = log.acknowledged.withLock { $0.count }
        #expect(before.count >= 160)
        #expect(total > before.count, "the writers went on during the backup")

        // A restore refuses a folder a server runs on, then fills a new one.
        let (refused, refusal) = try await EndToEndTests.run(["restore", archive, "--data", folder])
        #expect(refused != 0 && refusal.contains("stop it first"), "\(refusal)")
        let (restoredStatus, restoredOutput) = try await EndToEndTests.run(["restore", archive, "--data", restoredFolder])
        #expect(restoredStatus == 0, "\(restoredOutput)")
        // The secrets key comes along: without it the restored database's sealed secrets would not open.
        let secretsKey = try String(contentsOfFile: folder + "/secrets.key", encoding: .utf8)
        #expect(try String(contentsOfFile: restoredFolder + "/secrets.key", encoding: .utf8) == secretsKey)

        let restored = ServerProcess(dataFolder: restoredFolder, arguments: ["--quiet"], backend: .sqlite)
        try await restored.start()
        defer { restored.stop() }
        let user = client.on(restored)
        var found = 0
        for start in stride(from: 0, to: before.count, by: 200) {
            let names = before[start..<min(start + 200, before.count)]
            let lookup = try await user.post("records/lookup", #"{"records":[\#(names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#)
            found += (lookup["records"] as? [[String: Any]] ?? []).filter { $0["serverErrorCode"] == nil }.count
        }
        #expect(found == before.count, "every write acknowledged before the backup began is in it")
        // The asset file came with it, and the restored server takes new writes.
        let http = StreamingHTTP(port: restored.port)
        #expect(try http.get(download).bodyChecksum == file.checksum)
        _ = try await user.post("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"after-restore","recordType":"Note"}}]}"#)
    }

    @Test("a restore refuses a folder that holds data, an archive that is not a backup, and a damaged one, leaving the folder as it was")
    func restoreRefusals() async throws {
        let folder = EndToEndTests.temporaryFolder()
        let target = EndToEndTests.temporaryFolder()
        let archive = EndToEndTests.temporaryFolder() + ".tar"
        defer {
            for path in [folder, target, archive, archive + ".bad"] { try? FileManager.default.removeItem(atPath: path) }
        }
        #expect(try await EndToEndTests.run(["container", "create", "iCloud.com.example.Backup", "--data", folder]).0 == 0)
        #expect(try await EndToEndTests.run(["backup", "--data", folder, "--out", archive]).0 == 0)
        let (again, exists) = try await EndToEndTests.run(["backup", "--data", folder, "--out", archive])
        #expect(again != 0 && exists.contains("exists already"))

        #expect(try await EndToEndTests.run(["container", "create", "iCloud.com.example.Other", "--data", target]).0 == 0)
        let (occupied, message) = try await EndToEndTests.run(["restore", archive, "--data", target])
        #expect(occupied != 0 && message.contains("--force"), "\(message)")

        // An archive cut short inside the database copy fails the restore; the folder keeps its own data.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: archive + ".bad"))
        let (damaged, complaint) = try await EndToEndTests.run(["restore", archive + ".bad", "--data", target, "--force"])
        #expect(damaged != 0, "\(complaint)")
        let (_, list) = try await EndToEndTests.run(["container", "list", "--data", target])
        #expect(list.contains("iCloud.com.example.Other"))

        try Data("not a backup".utf8).write(to: URL(fileURLWithPath: archive + ".bad"))
        #expect(try await EndToEndTests.run(["restore", archive + ".bad", "--data", target, "--force"]).0 != 0)

        let (forced, _) = try await EndToEndTests.run(["restore", archive, "--data", target, "--force"])
        #expect(forced == 0)
        let (_, restoredList) = try await EndToEndTests.run(["container", "list", "--data", target])
        #expect(restoredList.contains("iCloud.com.example.Backup") && !restoredList.contains("iCloud.com.example.Other"))
    }
}
