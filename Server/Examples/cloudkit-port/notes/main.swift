import CloudKit
import Foundation

// notes <file> add <id> <text> | delete <id> | sync | list
// Each command but `list` syncs (fetches, then sends) and prints the notes as `id=text`, one per line.
let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first, let command = arguments.dropFirst().first else {
    print("usage: notes <file> add <id> <text> | delete <id> | sync | list")
    exit(2)
}
let operands = Array(arguments.dropFirst(2))

do {
    let app = try NotesSync(container: CKContainer.default(), url: URL(fileURLWithPath: path))
    switch command {
    case "add" where operands.count == 2:
        app.save(operands[0], text: operands[1])
    case "delete" where operands.count == 1:
        app.delete(operands[0])
    case "sync", "list":
        break
    default:
        print("unknown command \(command) \(operands)")
        exit(2)
    }
    if command != "list" {
        try await app.sync()
    }
    for line in app.log {
        print("# \(line)")
    }
    for (id, text) in app.notes.sorted(by: { $0.key < $1.key }) {
        print("\(id)=\(text)")
    }
    print("pending: \(app.engine.state.pendingRecordZoneChanges.count)")
} catch {
    print("error: \(error)")
    exit(1)
}
