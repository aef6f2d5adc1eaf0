import Foundation
import StratusKit

/// A chat over a Stratus public database: channels, and messages that belong to their channel.
struct Chat {
    let container: Container
    /// How the user signs their messages.
    let name: String
    var database: Database { container.publicCloudDatabase }

    /// The channel record, created on first use (its record name is the channel's name).
    func join(_ channel: String) async throws -> Record {
        let id = Record.ID(recordName: "channel-\(channel)")
        if let existing = try? await database.record(for: id) { return existing }
        var record = Record(recordType: "Channel", recordID: id)
        record["name"] = channel
        return try await database.save(record)
    }

    /// Posts a message, with a file attached if given. The message points at its channel with deleteSelf,
    /// so deleting the channel deletes its messages.
    @discardableResult
    func say(_ text: String, in channel: String, attaching file: URL? = nil) async throws -> Record {
        let channelRecord = try await join(channel)
        var message = Record(recordType: "ChatMessage")
        message["channel"] = Record.Reference(record: channelRecord, action: .deleteSelf)
        message["text"] = text
        message["author"] = name
        message["sentAt"] = Date()
        if let file {
            message["attachment"] = Asset(fileURL: file)
            message["attachmentName"] = file.lastPathComponent
        }
        return try await database.save(message)
    }

    /// A channel's messages, oldest first, across every page.
    func messages(in channel: String) async throws -> [Record] {
        let reference = Record.Reference(recordID: Record.ID(recordName: "channel-\(channel)"))
        var all: [Record] = []
        for try await message in database.allRecords(matching: Query(recordType: "ChatMessage", filter: .field("channel") == reference, sort: [.ascending("sentAt")])) {
            all.append(message)
        }
        return all
    }

    /// Subscribes to a channel's new messages and yields each as it is posted.
    func listen(to channel: String) async throws -> AsyncThrowingStream<SubscriptionNotification, any Error> {
        let reference = Record.Reference(recordID: Record.ID(recordName: "channel-\(channel)"))
        try await database.save(Subscription(
            id: "chat-\(channel)", query: Query(recordType: "ChatMessage", filter: .field("channel") == reference), firesOn: [.create],
            notificationInfo: .init(alertBody: "New message in \(channel)", desiredKeys: ["text", "author"])
        ))
        return container.notifications()
    }

    /// Deletes a channel and, through the references, its messages.
    func delete(_ channel: String) async throws {
        try await database.deleteRecord(withID: Record.ID(recordName: "channel-\(channel)"))
    }
}
