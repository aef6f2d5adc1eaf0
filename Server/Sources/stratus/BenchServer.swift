import StratusServices
import ArgumentParser
import Foundation
import StratusServer

/// A `stratus serve` child process that `stratus bench --database` starts on the database, and stops afterwards.
struct BenchServer {
    let process: Process
    let url: String
    let adminKey: String
    let folder: String

    var pid: Int32 { process.processIdentifier }

    /// Starts this executable's `serve` on a free loopback port with a temporary data folder, and waits until it listens.
    static func start(database: String) throws -> BenchServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-\(UUID().uuidString)").path
        let adminKey = UUID().uuidString
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["serve", "--port", "0", "--data", folder, "--admin-key", adminKey, "--database", database, "--quiet",
            // The webhook scenario sends to a receiver in the benchmark's own process, on loopback, with a secret the
            // server seals with its secrets key.
            "--webhooks-allow-private", "--secrets-key", SecretsKeyring.newKeyText()]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var buffer = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            buffer += String(decoding: data, as: UTF8.self)
            if let range = buffer.range(of: "listening on "), let end = buffer[range.upperBound...].firstIndex(where: { $0 == " " || $0 == "\n" }) {
                let url = String(buffer[range.upperBound..<end])
                FileHandle.standardError.write(Data("started a server on the database at \(url) (process \(process.processIdentifier))\n".utf8))
                return BenchServer(process: process, url: url, adminKey: adminKey, folder: folder)
            }
        }
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
        throw ValidationError("the server on --database did not start: \(buffer)")
    }

    /// Stops the server and removes its folder.
    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
