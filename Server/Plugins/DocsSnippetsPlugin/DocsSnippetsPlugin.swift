import Foundation
import PackagePlugin

/// Compiles the documentation's examples: the `swift` code blocks of the repository's README and `docs/` pages, and
/// of the previous release's SDK page kept in `api/previous-release/`, become one generated source file of the target that uses this plugin (see `SnippetExtractor`).
@main
struct DocsSnippetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let repository = context.package.directoryURL.deletingLastPathComponent()
        let docs = repository.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }
            .map { docs.appendingPathComponent($0) }
        // The previous release's SDK page too: an app written from it must still compile (CHANGELOG.md).
        let released = repository.appendingPathComponent("api/previous-release")
        let releasedPages = ((try? FileManager.default.contentsOfDirectory(atPath: released.path)) ?? [])
            .filter { $0.hasSuffix(".md") }
            .map { released.appendingPathComponent($0) }
        let inputs = [repository.appendingPathComponent("README.md")] + pages + releasedPages
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("DocumentationSnippets.swift")
        return [
            .buildCommand(
                displayName: "Extracting the documentation's Swift examples",
                executable: try context.tool(named: "SnippetExtractor").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            ),
        ]
    }
}
