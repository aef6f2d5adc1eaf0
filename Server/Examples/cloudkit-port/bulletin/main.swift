import CloudKit
import Foundation

// bulletin post <text> | list | subscribe | discoverable | share <title> <email> | open <url>
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print("usage: bulletin post <text> | list | subscribe | discoverable | share <title> <email> | open <url>")
    exit(2)
}
let container = CKContainer.default()
let board = Bulletin(container: container)

do {
    switch (command, arguments.count) {
    case ("post", 2):
        let saved = try await board.post(arguments[1])
        print("posted \(saved["text"] as? String ?? "") changeTag=\(saved.recordChangeTag != nil)")
    case ("list", 1):
        for text in try await board.posts() {
            print("post: \(text)")
        }
    case ("subscribe", 1):
        print("subscriptions: \(try await board.subscribeToUrgentPosts().joined(separator: ","))")
    case ("discoverable", 1):
        let status = try await container.requestApplicationPermission(.userDiscoverability)
        print("discoverable: \(status == .granted)")
    case ("share", 3):
        print("shared: \(try await board.sharePlan(arguments[1], with: arguments[2]).absoluteString)")
    case ("open", 2):
        guard let url = URL(string: arguments[1]) else { throw CKError(.invalidArguments) }
        print("plan: \(try await board.openPlan(url))")
    default:
        print("unknown command \(arguments)")
        exit(2)
    }
} catch let error as CKError {
    print("error: \(error.code)")
    exit(1)
} catch {
    print("error: \(error)")
    exit(1)
}
