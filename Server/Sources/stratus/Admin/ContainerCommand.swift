import ArgumentParser
import Foundation
import StratusModel
import StratusServer

/// `stratus container ...`: manage containers.
struct ContainerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "container", abstract: "Manage containers.", subcommands: [Create.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a container and print its API token.")

        @Argument(help: "The container ID, such as iCloud.com.example.App.")
        var id: String

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                let container = try await admin.connect(makingFolder: true).createContainer(id)
                let output = try JSONEncoder().encode(CreateContainerResponse(containerID: container.containerID, apiToken: container.apiToken))
                print(String(decoding: output, as: UTF8.self))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List containers and their API tokens.")

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                for container in try await admin.connect().containers() {
                    print("\(container.id)\t\(container.apiToken)")
                }
            }
        }
    }
}
