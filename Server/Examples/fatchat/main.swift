import Foundation
import StratusExampleSupport
import StratusKit

// fatchat: a command-line chat on Stratus.
//
//   fatchat demo                              two users chat, live, with an attachment; then the channel is deleted
//   fatchat <email> say <channel> <text> [file]
//   fatchat <email> read <channel>
//   fatchat <email> listen <channel>          prints new messages as they are posted (Ctrl-C to stop)
//   fatchat <email> delete <channel>

await runExample {
    let containerID = "iCloud.com.example.FatChat"
    let server = try ExampleServer()
    var arguments = Array(CommandLine.arguments.dropFirst())

    func show(_ message: Record) -> String {
        let attachment = (message["attachmentName"] as String?).map { "  📎 \($0)" } ?? ""
        return "\(message["author"] as String? ?? "?"): \(message["text"] as String? ?? "")\(attachment)"
    }

    if arguments.first == "demo" || arguments.isEmpty {
        let ann = Chat(container: try await server.signedIn("ann@fatchat.example", containerID: containerID), name: "ann")
        let bob = Chat(container: try await server.signedIn("bob@fatchat.example", containerID: containerID), name: "bob")
        let channel = "general-\(Int(Date().timeIntervalSince1970))"
        _ = try await ann.join(channel)
        print("ann and bob are in #\(channel)")

        // Bob listens; the first notification of his stream is Ann's message.
        let stream = try await bob.listen(to: channel)
        let listener = Task {
            for try await notification in stream {
                if case .query(_, .recordCreated, let fields) = notification.kind, case .string(let text)? = fields["text"] {
                    return text
                }
            }
            return ""
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("agenda.txt")
        try Data("1. ship it\n2. celebrate\n".utf8).write(to: file)
        try await ann.say("hello bob, agenda attached", in: channel, attaching: file)
        print("bob was notified at once: \"\(try await listener.value)\"")
        try await bob.say("got it, thanks", in: channel)

        let messages = try await bob.messages(in: channel)
        for message in messages { print("  " + show(message)) }
        if let attachment = messages.first?["attachment"] as Asset? {
            let bytes = try await bob.database.data(for: attachment)
            print("bob downloaded the attachment: \(bytes.count) bytes, first line \"\(String(decoding: bytes, as: UTF8.self).split(separator: "\n")[0])\"")
        }
        try await ann.delete(channel)
        print("ann deleted #\(channel); messages left: \(try await bob.messages(in: channel).count)")
        exit(0)
    }

    guard arguments.count >= 3 else { throw ExampleError("usage: fatchat demo | fatchat <email> say|read|listen|delete <channel> [text] [file]") }
    let email = arguments.removeFirst()
    let chat = Chat(container: try await server.signedIn(email, containerID: containerID), name: String(email.split(separator: "@")[0]))
    let command = arguments.removeFirst()
    let channel = arguments.removeFirst()
    switch command {
    case "say":
        let message = try await chat.say(arguments.first ?? "", in: channel, attaching: arguments.dropFirst().first.map { URL(fileURLWithPath: $0) })
        print(show(message))
    case "read":
        for message in try await chat.messages(in: channel) { print(show(message)) }
    case "listen":
        printNow("listening to #\(channel)…")
        for try await notification in try await chat.listen(to: channel) {
            if case .query(_, _, let fields) = notification.kind, case .string(let text)? = fields["text"], case .string(let author)? = fields["author"] {
                printNow("\(author): \(text)")
            }
        }
    case "delete":
        try await chat.delete(channel)
        print("#\(channel) and its messages are deleted")
    default:
        throw ExampleError("unknown command \(command)")
    }
}
