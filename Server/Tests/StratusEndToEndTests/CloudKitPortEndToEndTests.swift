import Foundation
import StratusStoreTesting
import Testing

/// The port test: the apps in `Server/Examples/cloudkit-port`, written against CloudKit's Swift API with
/// `import CloudKit`, moved to Stratus by one `sed` of that import, built against the client package as an app
/// would, and run against a `stratus serve` process: the CKSyncEngine notes app on two devices of one user, the
/// operations-based board by two users who share a plan.
@Suite(.serialized) struct CloudKitPortEndToEndTests {
    static let container = "iCloud.com.example.Port"
    static let apps = ["notes": "Notes", "bulletin": "Bulletin"]

    /// The apps copied to a new package, their import changed by `sed`, built; answers the package's folder.
    static func buildPortedApps(in folder: String) async throws -> String {
        let package = folder + "/port"
        for (source, target) in apps {
            let from = Repository.path("Server/Examples/cloudkit-port/\(source)")
            try FileManager.default.createDirectory(atPath: package + "/Sources", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: from, toPath: package + "/Sources/" + target)
        }
        let files = try FileManager.default.subpathsOfDirectory(atPath: package + "/Sources").filter { $0.hasSuffix(".swift") }.map { package + "/Sources/" + $0 }
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.hasPrefix("import CloudKit\n") && !text.contains("Stratus"), "\(file) is not written against CloudKit alone")
        }
        let (edited, editLog) = try await ChildProcess.run("/usr/bin/env", ["sed", "-i", "s/^import CloudKit$/import StratusCloudKit/"] + files)
        try #require(edited == 0, "\(editLog)")
        let products = #"[.product(name: "StratusCloudKit", package: "Stratus")]"#
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Port",
                platforms: [.macOS(.v14), .iOS(.v17)],
                dependencies: [.package(name: "Stratus", path: "\(Repository.root.path)")],
                targets: [
            \(apps.values.sorted().map { #"        .executableTarget(name: "\#($0)", dependencies: \#(products)),"# }.joined(separator: "\n"))
                ]
            )
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: package + "/Package.swift"))
        let (built, log) = try await ChildProcess.run("/usr/bin/env", ["swift", "build", "-j", "1"], directory: package)
        try #require(built == 0, "the ported apps do not build:\n\(log.components(separatedBy: "\n").filter { $0.contains("error") }.prefix(20).joined(separator: "\n"))\n\(log.suffix(2_000))")
        return package
    }

    @Test("CloudKit apps moved by one sed of their import: CKSyncEngine notes on two devices (conflict, deletion), posts, a subscription and a shared plan through operations")
    func portedApps() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try await Self.buildPortedApps(in: folder)

        let server = ServerProcess(dataFolder: folder + "/server", arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let apiToken = try await server.createContainer(Self.container)
        let ann = try await SignedInUser.signUp("ann@example.com", container: Self.container, apiToken: apiToken, on: server)
        let bob = try await SignedInUser.signUp("bob@example.com", container: Self.container, apiToken: apiToken, on: server)
        let carol = try await SignedInUser.signUp("carol@example.com", container: Self.container, apiToken: apiToken, on: server)
        func run(_ app: String, as user: SignedInUser, _ arguments: [String]) async throws -> String {
            let environment = [
                "STRATUS_URL": server.baseURL, "STRATUS_API_TOKEN": apiToken, "STRATUS_CONTAINER": Self.container,
                "STRATUS_ENVIRONMENT": "development", "STRATUS_WEB_AUTH_TOKEN": user.webAuthToken, "HOME": folder,
            ]
            let (status, output) = try await ChildProcess.run(package + "/.build/debug/" + app, arguments, environment: environment, directory: folder)
            #expect(status == 0, "\(app) \(arguments) exited with \(status): \(output)")
            return output
        }

        // Notes: two devices of Ann's, each with its own file.
        let phone = folder + "/phone.json", laptop = folder + "/laptop.json"
        var output = try await run("Notes", as: ann, [phone, "add", "n1", "Milk"])
        #expect(output.hasSuffix("n1=Milk\npending: 0\n"), "\(output)")
        output = try await run("Notes", as: ann, [phone, "add", "n2", "Eggs"])
        output = try await run("Notes", as: ann, [laptop, "sync"])
        #expect(output.hasSuffix("n1=Milk\nn2=Eggs\npending: 0\n"), "the laptop fetched the phone's notes: \(output)")

        // Both edit n1; the laptop's edit is the later one and wins when it meets the phone's on the server.
        output = try await run("Notes", as: ann, [phone, "add", "n1", "Oat milk"])
        output = try await run("Notes", as: ann, [laptop, "add", "n1", "Soy milk"])
        #expect(output.contains("# conflict on n1: kept this device's edit") && output.hasSuffix("n1=Soy milk\nn2=Eggs\npending: 0\n"), "\(output)")
        output = try await run("Notes", as: ann, [phone, "sync"])
        #expect(output.hasSuffix("n1=Soy milk\nn2=Eggs\npending: 0\n"), "\(output)")

        // A deletion on one device reaches the other.
        output = try await run("Notes", as: ann, [phone, "delete", "n2"])
        #expect(output.hasSuffix("n1=Soy milk\npending: 0\n"), "\(output)")
        output = try await run("Notes", as: ann, [laptop, "sync"])
        #expect(output.contains("# deleted elsewhere: n2") && output.hasSuffix("n1=Soy milk\npending: 0\n"), "\(output)")

        // The board: posts read back newest first across pages, a subscription, a plan shared by email.
        for text in ["First", "Second", "Urgent: third"] {
            output = try await run("Bulletin", as: ann, ["post", text])
            #expect(output == "posted \(text) changeTag=true\n", "\(output)")
        }
        output = try await run("Bulletin", as: bob, ["list"])
        #expect(output == "post: Urgent: third\npost: Second\npost: First\n", "\(output)")
        output = try await run("Bulletin", as: bob, ["subscribe"])
        #expect(output == "subscriptions: urgent-posts\n", "\(output)")
        output = try await run("Bulletin", as: bob, ["discoverable"])
        #expect(output == "discoverable: true\n", "\(output)")
        output = try await run("Bulletin", as: ann, ["share", "Trip", "bob@example.com"])
        let link = try #require(output.firstMatch(of: /shared: (\S+)/)?.1, "\(output)")
        output = try await run("Bulletin", as: bob, ["open", String(link)])
        #expect(output == "plan: Trip\n", "\(output)")
        let environment = [
            "STRATUS_URL": server.baseURL, "STRATUS_API_TOKEN": apiToken, "STRATUS_CONTAINER": Self.container,
            "STRATUS_WEB_AUTH_TOKEN": carol.webAuthToken, "HOME": folder,
        ]
        let (refused, refusal) = try await ChildProcess.run(package + "/.build/debug/Bulletin", ["open", String(link)], environment: environment, directory: folder)
        #expect(refused == 1 && refusal == "error: permissionFailure\n", "\(refusal)")
    }
}
