import StratusModel
import StratusStore

/// Operator actions shared by the admin API and the command line.
public enum AdminOperations {
    /// Creates a container with a fresh API token (64 hexadecimal characters, the form clients expect).
    /// - Throws: `BAD_REQUEST` for an invalid ID, `EXISTS` (409) when it exists.
    public static func createContainer(id: String, store: any AccountStore) async throws -> ContainerInfo {
        guard isValidContainerID(id) else {
            throw ServiceError.invalidArgument("containerID must look like iCloud.com.example.App: letters, digits, '.', '-' and '_', at most 255 characters")
        }
        let container = ContainerInfo(id: id, apiToken: Tokens.randomHex(bytes: 32), createdAt: ServerClock.now())
        try await store.createContainer(container)
        return container
    }

    public static func isValidContainerID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 255 && !id.hasPrefix(".")
            && id.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || scalar == "." || scalar == "-" || scalar == "_"
            }
    }

}
