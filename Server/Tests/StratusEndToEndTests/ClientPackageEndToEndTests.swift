import Foundation
import StratusStoreTesting
import Testing

/// The client package as an app meets it: a fresh package that depends on the repository's root package, as an
/// app's `.package(url:from:)` would, resolves no other package and builds with StratusKit, both kits and the admin
/// client. One build
/// at a time, on one core: two builds of two jobs each would take the machine from the tests beside them for a minute.
@Suite(.serialized) struct ClientPackageEndToEndTests {
    /// An app's manifest depending on the client package at `root`, with one program per name in `executables`,
    /// each using StratusKit, both kits and the admin client.
    static func manifest(root: String, executables: [String] = ["App"]) -> String {
        let products = #"[.product(name: "StratusKit", package: "Stratus"), .product(name: "StratusMessages", package: "Stratus"), .product(name: "StratusFlags", package: "Stratus"), .product(name: "StratusAdmin", package: "Stratus"), .product(name: "StratusKitTesting", package: "Stratus"), .product(name: "StratusLocalStore", package: "Stratus"), .product(name: "StratusCloudKit", package: "Stratus")]"#
        return """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "App",
                platforms: [.macOS(.v14), .iOS(.v17)],
                dependencies: [.package(name: "Stratus", path: "\(root)")],
                targets: [
            \(executables.map { #"        .executableTarget(name: "\#($0)", dependencies: \#(products)),"# }.joined(separator: "\n"))
                ]
            )
            """
    }

    static let main = """
        import Foundation
        import StratusAdmin
        import StratusFlags
        import StratusKit
        import StratusMessages

        let container = Container(identifier: "iCloud.com.example.App", serverURL: URL(string: "http://127.0.0.1:8080")!, apiToken: "token")
        var note = Record(recordType: "Note", recordID: Record.ID(recordName: "n1", zoneID: Zone.ID(zoneName: "Notes")))
        note["title"] = "Groceries"
        let editor = FeatureSwitch(identifier: "newEditor", isEnabledByDefault: true)
        _ = AdminClient(url: container.serverURL, adminKey: "key")
        print(container.identifier, note["title"] as String? ?? "", editor.identifier, MessageSchema.text.contains("InAppMessage"), AdminClient.escaped("a/b"))
        """

    /// The packages a resolved package graph holds, from `swift package show-dependencies --format json`.
    static func packageNames(_ node: [String: Any]) -> [String] {
        let children = node["dependencies"] as? [[String: Any]] ?? []
        return children.flatMap { [($0["name"] as? String) ?? "?"] + packageNames($0) }
    }

    @Test("an app depending on the client package resolves no other package, and builds and runs with StratusKit, both kits and the admin client")
    func lightPackage() async throws {
        let folder = EndToEndTests.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder + "/Sources/App", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(Self.manifest(root: Repository.root.path).utf8).write(to: URL(fileURLWithPath: folder + "/Package.swift"))
        try Data(Self.main.utf8).write(to: URL(fileURLWithPath: folder + "/Sources/App/main.swift"))

        let (resolved, graph) = try await ChildProcess.run("/usr/bin/env", ["swift", "package", "show-dependencies", "--format", "json"], directory: folder)
        try #require(resolved == 0, "\(graph.suffix(2_000))")
        let json = try #require(graph.firstIndex(of: "{").map { String(graph[$0...]) })
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Self.packageNames(root) == ["Stratus"], "the app resolved only the client package")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/.build/checkouts")) ?? []
        #expect(checkouts.isEmpty, "nothing was checked out: \(checkouts)")

        let (built, log) = try await ChildProcess.run("/usr/bin/env", ["swift", "build", "-j", "1"], directory: folder)
        try #require(built == 0, "\(log.suffix(3_000))")
        let (ran, output) = try await ChildProcess.run(folder + "/.build/debug/App", [], directory: folder)
        #expect(ran == 0)
        #expect(output == "iCloud.com.example.App Groceries newEditor true a%2Fb\n")
    }

    @Test("the dependency line docs/sdk.md shows resolves against a clone of the repository, and an app builds on it")
    func documentedDependencyResolves() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/App/Sources/App", withIntermediateDirectories: true)
        // A clone as an app's resolver makes one, with the documented branch at what is committed here.
        let (cloned, cloneLog) = try await ChildProcess.run("/usr/bin/env", ["git", "clone", "-q", Repository.root.path, folder + "/stratus"])
        try #require(cloned == 0, "\(cloneLog)")
        let (branched, branchLog) = try await ChildProcess.run("/usr/bin/env", ["git", "-C", folder + "/stratus", "checkout", "-q", "-B", "main"])
        try #require(branched == 0, "\(branchLog)")

        let page = try String(contentsOfFile: Repository.path("docs/sdk.md"), encoding: .utf8)
        let block = try #require(
            page.components(separatedBy: "```text\n").dropFirst().map { $0.components(separatedBy: "```").first ?? "" }.first { $0.contains(".package(url:") },
            "docs/sdk.md shows no dependency line"
        )
        #expect(block.contains(#"branch: "main""#), "the documented line does not follow a branch or tag the repository has: \(block)")
        let documentedURL = try #require(block.firstMatch(of: /url: "([^"]+)"/)?.1)
        let local = block.replacingOccurrences(of: String(documentedURL), with: "file://\(folder)/stratus")
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "App",
                platforms: [.macOS(.v14), .iOS(.v17)],
            \(local)
            )
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: folder + "/App/Package.swift"))
        try Data("import StratusKit\npublic let zone = Zone(zoneName: \"Notes\")\n".utf8).write(to: URL(fileURLWithPath: folder + "/App/Sources/App/App.swift"))
        let (built, log) = try await ChildProcess.run("/usr/bin/env", ["swift", "build", "-j", "1"], directory: folder + "/App")
        #expect(built == 0, "the documented dependency does not resolve or build:\n\(manifest)\n\(log.suffix(3_000))")
    }

    /// The ```swift blocks of the README and of every page in `docs/`, each with where it comes from.
    static func swiftExamples() throws -> [(source: String, code: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Repository.path("docs")).filter { $0.hasSuffix(".md") }.sorted()
        var examples: [(String, String)] = []
        for file in ["README.md"] + docs.map({ "docs/" + $0 }) {
            let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
            for (index, block) in text.components(separatedBy: "```swift\n").dropFirst().enumerated() {
                examples.append(("\(file) #\(index + 1)", block.components(separatedBy: "```").first ?? ""))
            }
        }
        return examples
    }

    @Test("every Swift example in the README and docs/ compiles against the client package, each as a program of its own")
    func examplesCompile() async throws {
        let examples = try Self.swiftExamples()
        #expect(examples.count >= 3, "the README and docs/sdk.md hold Swift examples")
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var targets: [String] = []
        for (index, example) in examples.enumerated() {
            let name = "Example\(index + 1)"
            try FileManager.default.createDirectory(atPath: "\(folder)/Sources/\(name)", withIntermediateDirectories: true)
            let code = "// \(example.source)\nimport Foundation\n" + example.code
            try Data(code.utf8).write(to: URL(fileURLWithPath: "\(folder)/Sources/\(name)/main.swift"))
            targets.append(name)
        }
        try Data(Self.manifest(root: Repository.root.path, executables: targets).utf8).write(to: URL(fileURLWithPath: folder + "/Package.swift"))
        let (built, log) = try await ChildProcess.run("/usr/bin/env", ["swift", "build", "-j", "1"], directory: folder)
        #expect(built == 0, "an example does not compile:\n\(log.components(separatedBy: "\n").filter { $0.contains("error:") }.prefix(20).joined(separator: "\n"))")
    }
}
