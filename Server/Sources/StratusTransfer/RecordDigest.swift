import Crypto
import Foundation
import StratusModel

/// What an import compares between the source and the target: per record type, how many records and a
/// checksum of their names, stamps and field values.
///
/// The checksum is the XOR of one SHA-256 per record, so it does not depend on the order records are read in.
/// Each record's digest covers its name, type, creation and modification time and user, and every field's
/// type and value, written canonically: object keys sorted, whole numbers as integers, an asset as its file's
/// SHA-256 (`fileChecksum`) and size (not its URL), a reference as its record name and action.
public struct RecordDigest: Sendable, Hashable, Codable {
    public private(set) var count: Int = 0
    private var bytes = [UInt8](repeating: 0, count: 32)

    public init() {}

    /// The checksum, in hexadecimal.
    public var checksum: String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Adds a record.
    mutating func add(recordName: String, recordType: String, created: RecordStamp?, modified: RecordStamp?, fields: [String: FieldInput]) {
        var text = [recordName, recordType, Self.stamp(created), Self.stamp(modified)].joined(separator: "\u{0}")
        for name in fields.keys.sorted() {
            guard let field = fields[name], field.value != .null else { continue }
            text += "\u{0}\(name)\u{0}\(field.type ?? "")\u{0}"
            Self.writeCanonical(Self.comparable(field), to: &text)
        }
        for (index, byte) in SHA256.hash(data: Data(text.utf8)).enumerated() { bytes[index] ^= byte }
        count += 1
    }

    /// Takes a record out again (as it was added: the same name, stamps and fields), when an update replaces or
    /// deletes it.
    mutating func remove(recordName: String, recordType: String, created: RecordStamp?, modified: RecordStamp?, fields: [String: FieldInput]) {
        // XOR undoes itself: adding the same record's digest again takes it out.
        add(recordName: recordName, recordType: recordType, created: created, modified: modified, fields: fields)
        count -= 2
    }

    private static func stamp(_ stamp: RecordStamp?) -> String {
        stamp.map { "\($0.timestamp)/\($0.userRecordName)" } ?? ""
    }

    /// The part of a value that must be the same on both servers.
    private static func comparable(_ field: FieldInput) -> JSONValue {
        let type = field.type ?? ""
        let keep: Set<String>
        if type.hasPrefix("ASSETID") {
            keep = ["fileChecksum", "size"]
        } else if type.hasPrefix("REFERENCE") {
            keep = ["recordName", "action"]
        } else {
            return field.value
        }
        func trim(_ value: JSONValue) -> JSONValue {
            guard case .object(let object) = value else { return value }
            return .object(object.filter { keep.contains($0.key) })
        }
        if case .array(let items) = field.value { return .array(items.map(trim)) }
        return trim(field.value)
    }

    private static func writeCanonical(_ value: JSONValue, to text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .integer(let number): text += String(number)
        case .double(let number):
            if number.rounded() == number, abs(number) < 9.0e15 { text += String(Int64(number)) } else { text += String(number) }
        case .string(let string): text += "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                writeCanonical(item, to: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                text += "\"\(key)\":"
                writeCanonical(object[key]!, to: &text)
            }
            text += "}"
        }
    }
}
