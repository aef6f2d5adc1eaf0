import Foundation
import StratusKit

extension InAppMessage {
    /// The record type messages are kept as (see `Messages.ckdb`).
    public static let recordType = "InAppMessage"

    /// Reads a message record; `nil` for a record that is not a readable message.
    public init?(record: Record) {
        guard record.recordType == Self.recordType, let title = record["title"] as LocalizedString?,
            let content = record["content"] as LocalizedString?
        else { return nil }
        let kind: Kind
        switch record["kind"] as String? ?? "information" {
        case "information": kind = .information
        case "website":
            guard let url = (record["url"] as String?).flatMap(URL.init(string:)) else { return nil }
            kind = .website(url)
        case "email":
            guard let address = record["emailAddress"] as String? else { return nil }
            kind = .email(address: address)
        case "newVersion":
            guard let version = record["version"] as String? else { return nil }
            kind = .newVersion(version: version, storeURL: (record["url"] as String?).flatMap(URL.init(string:)))
        case "inAppPurchase":
            guard let product = record["productID"] as String? else { return nil }
            kind = .inAppPurchase(productID: product)
        default:
            return nil
        }
        self.init(
            id: record["identifier"] as String? ?? record.recordID.recordName, schemaVersion: record["schemaVersion"] as Int? ?? 1,
            isCurrent: record["isCurrent"] as Bool? ?? false, kind: kind, title: title, content: content,
            image: record["image"] as Asset?, imageAccessibilityLabel: record["imageAccessibilityLabel"] as LocalizedString?,
            buttonTitles: ButtonTitles(
                okay: record["okTitle"], action: record["actionTitle"], cancel: record["cancelTitle"], update: record["updateTitle"],
                alreadyHave: record["alreadyHaveTitle"], subscribe: record["subscribeTitle"]
            )
        )
    }

    /// The message as a record of the public database's default zone, named by its identifier.
    public var record: Record {
        var record = Record(recordType: Self.recordType, recordID: Record.ID(recordName: id))
        fill(&record)
        return record
    }

    /// Writes the message's fields into a record (a fetched one, to update it).
    public func fill(_ record: inout Record) {
        record["identifier"] = id
        record["schemaVersion"] = schemaVersion
        record["isCurrent"] = isCurrent
        record["title"] = title
        record["content"] = content
        record["image"] = image
        record["imageAccessibilityLabel"] = imageAccessibilityLabel
        record["okTitle"] = buttonTitles.okay
        record["actionTitle"] = buttonTitles.action
        record["cancelTitle"] = buttonTitles.cancel
        record["updateTitle"] = buttonTitles.update
        record["alreadyHaveTitle"] = buttonTitles.alreadyHave
        record["subscribeTitle"] = buttonTitles.subscribe
        switch kind {
        case .information:
            record["kind"] = "information"
        case .website(let url):
            record["kind"] = "website"
            record["url"] = url.absoluteString
        case .email(let address):
            record["kind"] = "email"
            record["emailAddress"] = address
        case .newVersion(let version, let storeURL):
            record["kind"] = "newVersion"
            record["version"] = version
            record["url"] = storeURL?.absoluteString
        case .inAppPurchase(let productID):
            record["kind"] = "inAppPurchase"
            record["productID"] = productID
        }
    }
}
