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
        var line = Self.timestamp()
        line += " level=\(event.level.rawValue) label=\(label) msg=\(Self.quote(event.message.description))"
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quote(merged[key]!.description))"
        }
        line += "\n"
        sink.append(line)
    }

    private static func quote(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// UTC ISO 8601 with milliseconds, computed without a formatter.
    static func timestamp(_ date: Date = Date()) -> String {
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
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(millis % 1000, 3))Z"
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

    init(fileDescriptor: Int32) {
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

    func append(_ line: String) {
        buffer.withLock { buffer in
            guard buffer.count < capacity else { return }
            buffer.append(contentsOf: line.utf8)
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
