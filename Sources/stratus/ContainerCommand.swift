import ArgumentParser
import Foundation
import StratusModel
import StratusServer

/// `stratus container ...`: manage containers in a data folder.
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container", abstract: "Manage containers.", subcommands: [Create.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a container and print its API token.")

        @Argument(help: "The container ID, such as iCloud.com.example.App.")
        var id: String

        @Option(help: "The data folder (STRATUS_DATA).")
        var data: String?

        func run() async throws {
            let store = try DataFolder(path: data ?? environmentValue("STRATUS_DATA") ?? "./stratus-data").openStore()
            try await reportingErrors {
                let container = try await AdminOperations.createContainer(id: id, store: store)
                let output = try JSONEncoder().encode(CreateContainerResponse(containerID: container.id, apiToken: container.apiToken))
                print(String(decoding: output, as: UTF8.self))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List containers and their API tokens.")

        @Option(help: "The data folder (STRATUS_DATA).")
        var data: String?

        func run() async throws {
            let store = try DataFolder(path: data ?? environmentValue("STRATUS_DATA") ?? "./stratus-data").openStore()
            for container in try await store.containers() {
                print("\(container.id)\t\(container.apiToken)")
            }
        }
    }
}
