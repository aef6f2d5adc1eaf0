import Foundation
import StratusModel
import StratusStore

/// The JSON a function reads as its input, for each trigger (docs/hooks.md#the-interface).
package enum FunctionInputs {
    /// A `beforeSave` function's input: the operation of `caller` (`nil`: nobody signed in) in `database`.
    package static func beforeSave(_ operation: RecordOperation, zone: ZoneRef, caller: String?, database: DatabaseScope, binding: FunctionBinding) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        header(&writer, trigger: "beforeSave", binding)
        writer.key("caller")
        if let caller { writer.raw(#"{"userRecordName":\#(quoted(caller))}"#) } else { writer.null() }
        writer.key("database")
        writer.string(database.rawValue)
        writer.key("zoneID")
        writer.beginObject()
        writer.key("zoneName")
        writer.string(zone.zoneName)
        writer.key("ownerRecordName")
        writer.string(zone.database.ownerRecordName)
        writer.endObject()
        writer.key("operationType")
        writer.string(operation.type.rawValue)
        writer.key("record")
        writer.beginObject()
        writer.key("recordName")
        writer.string(operation.recordName)
        if let type = operation.recordType {
            writer.key("recordType")
            writer.string(type)
        }
        if let tag = operation.recordChangeTag {
            writer.key("recordChangeTag")
            writer.string(tag)
        }
        writer.key("fields")
        writer.beginObject()
        for (name, field) in (operation.fields ?? [:]).sorted(by: { $0.key < $1.key }) {
            writer.key(name)
            writer.beginObject()
            writer.key("value")
            field.value.write(to: &writer)
            if let type = field.type {
                writer.key("type")
                writer.string(type)
            }
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// A callable function's input: the caller and the request's body (any JSON), spliced in as sent.
    package static func call(_ binding: FunctionBinding, caller: String?, body: [UInt8]) -> [UInt8] {
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
    package static func afterSave(_ binding: FunctionBinding, eventID: String, event: String) -> [UInt8] {
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
    package static func schedule(_ binding: FunctionBinding, job: String, scheduledFor: Int64, missed: Int) -> [UInt8] {
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
