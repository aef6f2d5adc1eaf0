import Foundation
import StratusModel
import StratusStore

/// The JSON a function reads as its input, for each trigger (docs/hooks.md#input).
enum FunctionInputs {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct Caller: Encodable {
        var userRecordName: String
    }

    private struct RecordBeingSaved: Encodable {
        var recordName: String
        var recordType: String?
        var recordChangeTag: String?
        var fields: [String: FieldInput]
    }

    private struct BeforeSaveInput: Encodable {
        var trigger = "beforeSave"
        var function: String
        var containerIdentifier: String
        var environment: String
        var caller: Caller?
        var database: String
        var zoneID: ZoneID
        var operationType: String
        var record: RecordBeingSaved
    }

    static func beforeSave(_ operation: RecordOperation, zone: ZoneRef, call: DatabaseCall, binding: FunctionBinding) throws -> [UInt8] {
        let input = BeforeSaveInput(
            function: binding.name, containerIdentifier: binding.containerID, environment: binding.environment.rawValue,
            caller: call.authentication.userRecordName.map(Caller.init), database: call.scope.rawValue,
            zoneID: ZoneID(zoneName: zone.zoneName, ownerRecordName: zone.database.ownerRecordName), operationType: operation.type.rawValue,
            record: RecordBeingSaved(
                recordName: operation.recordName, recordType: operation.recordType, recordChangeTag: operation.recordChangeTag,
                fields: operation.fields ?? [:]
            )
        )
        return Array(try encoder.encode(input))
    }

    /// A callable function's input: the caller and the request's body (any JSON), spliced in as sent.
    static func call(_ binding: FunctionBinding, caller: String?, body: [UInt8]) -> [UInt8] {
        var writer = JSONWriter(capacity: body.count + 256)
        writer.beginObject()
        header(&writer, trigger: "call", binding)
        writer.key("caller")
        if let caller { writer.raw(#"{"userRecordName":\#(quoted(caller))}"#) } else { writer.null() }
        writer.key("body")
        writer.raw(body.isEmpty ? "null" : String(decoding: body, as: UTF8.self))
        writer.endObject()
        return writer.bytes
    }

    /// An `afterSave` function's input: the event's ID (the same in every delivery of it) and the event, as a webhook
    /// endpoint receives it.
    static func afterSave(_ binding: FunctionBinding, eventID: String, event: String) -> [UInt8] {
        var writer = JSONWriter(capacity: event.utf8.count + 256)
        writer.beginObject()
        header(&writer, trigger: "afterSave", binding)
        writer.key("eventID")
        writer.string(eventID)
        writer.key("event")
        writer.raw(event)
        writer.endObject()
        return writer.bytes
    }

    /// A scheduled function's input: the job and the time the run stands for.
    static func schedule(_ binding: FunctionBinding, job: String, scheduledFor: Int64, missed: Int) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        header(&writer, trigger: "schedule", binding)
        writer.key("job")
        writer.string(job)
        writer.key("scheduledFor")
        writer.string(WebhookDelivery.timestamp(scheduledFor))
        writer.key("missedRuns")
        writer.integer(Int64(missed))
        writer.endObject()
        return writer.bytes
    }

    private static func header(_ writer: inout JSONWriter, trigger: String, _ binding: FunctionBinding) {
        writer.key("trigger")
        writer.string(trigger)
        writer.key("function")
        writer.string(binding.name)
        writer.key("containerIdentifier")
        writer.string(binding.containerID)
        writer.key("environment")
        writer.string(binding.environment.rawValue)
    }

    private static func quoted(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.text
    }
}
