import Foundation
import Logging
import Synchronization

/// A structured (logfmt) log handler that never writes on the caller's thread.
///
/// Lines are appended to a shared in-memory buffer; a background thread writes the buffer to standard
/// error every few milliseconds. Call ``LogSink/flush()`` before exiting.
public struct BufferedLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let sink: LogSink

    public init(label: String, sink: LogSink = .standardError) {
        self.label = label
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        Self.appendTimestamp(to: &line)
        line += " level=".utf8
        line += event.level.rawValue.utf8
        line += " label=".utf8
        line += label.utf8
        line += " msg=".utf8
        Self.appendValue(event.message.description, to: &line)
        // The handler's metadata (such as the request id), then the event's, each in key order; an event
        // key overrides the handler's. No merged dictionary is built: this runs once per request.
        let extra = event.metadata ?? [:]
        if !metadata.isEmpty {
            for key in metadata.keys.sorted() where extra[key] == nil {
                Self.appendField(key, metadata[key]!, to: &line)
            }
        }
        for key in extra.keys.sorted() {
            Self.appendField(key, extra[key]!, to: &line)
        }
        line.append(UInt8(ascii: "\n"))
        sink.append(line)
    }

    private static func appendField(_ key: String, _ value: Logger.MetadataValue, to line: inout [UInt8]) {
        line.append(UInt8(ascii: " "))
        line += key.utf8
        line.append(UInt8(ascii: "="))
        if case .string(let text) = value {
            appendValue(text, to: &line)
        } else {
            appendValue(value.description, to: &line)
        }
    }

    /// Appends a logfmt value, quoted and escaped only when it must be.
    private static func appendValue(_ value: String, to line: inout [UInt8]) {
        let bytes = value.utf8
        let needsQuotes = bytes.isEmpty || bytes.contains { $0 == 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C || $0 < 0x20 }
        guard needsQuotes else {
            line += bytes
            return
        }
        line.append(0x22)
        for byte in bytes {
            switch byte {
            case 0x22, 0x5C: line += [0x5C, byte]
            case 0x0A: line += [0x5C, UInt8(ascii: "n")]
            case 0x0D: line += [0x5C, UInt8(ascii: "r")]
            case 0x09: line += [0x5C, UInt8(ascii: "t")]
            default: line.append(byte)
            }
        }
        line.append(0x22)
    }

    /// UTC ISO 8601 with milliseconds, computed without a formatter.
    package static func timestamp(_ date: Date = Date()) -> String {
        var line: [UInt8] = []
        appendTimestamp(date, to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    private static func appendTimestamp(_ date: Date = Date(), to line: inout [UInt8]) {
        let millis = Int64(date.timeIntervalSince1970 * 1000)
        let seconds = millis / 1000
        var days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        // Civil date from days since 1970 (H. Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                line.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        line.append(UInt8(ascii: "-"))
        digits(month, 2)
        line.append(UInt8(ascii: "-"))
        digits(day, 2)
        line.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        line.append(UInt8(ascii: ":"))
        digits(secondOfDay % 3600 / 60, 2)
        line.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        line.append(UInt8(ascii: "."))
        digits(millis % 1000, 3)
        line.append(UInt8(ascii: "Z"))
    }
}

/// Where buffered log lines go: a file descriptor, written by a background thread.
public final class LogSink: Sendable {
    /// Standard error, shared by every handler of the process.
    public static let standardError = LogSink(fileDescriptor: 2)

    private let buffer = Mutex<[UInt8]>([])
    private let fileDescriptor: Int32
    /// Lines kept in memory before new ones are dropped, if the output cannot keep up.
    private let capacity = 8 * 1024 * 1024

    package init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        let thread = Thread { [self] in
            while true {
                flush()
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        thread.name = "stratus-log"
        thread.start()
    }

    package func append(_ line: [UInt8]) {
        buffer.withLock { buffer in
            guard buffer.count < capacity else { return }
            buffer.append(contentsOf: line)
        }
    }

    /// Writes out everything buffered so far.
    public func flush() {
        let pending = buffer.withLock { buffer -> [UInt8] in
            let pending = buffer
            buffer.removeAll(keepingCapacity: true)
            return pending
        }
        var offset = 0
        while offset < pending.count {
            let written = pending[offset...].withUnsafeBytes { write(fileDescriptor, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            offset += written
        }
    }
}
