import StratusServices
import Foundation
import NIOCore

/// Refuses a chunked request body as soon as a chunk's declared size is larger than any request may be (`413`).
///
/// The HTTP parser takes any chunk size and waits for that many bytes, so a client declaring
/// `ffffffffffffffff` would hold its connection until the body timeout with no answer. This handler sits in front
/// of the parser and follows each request's framing on the raw bytes: the head (to its blank line), a
/// `Content-Length` body, or chunk-size lines, chunks and trailers. When a size (or the sizes declared so far) passes
/// `maximumBodyBytes`, it passes the bytes on, so that the request reaches its route, then fails the request's body
/// with `413 QUOTA_EXCEEDED`, which the route answers; the connection closes after that answer. What it cannot
/// follow (an upgrade, a head too long for the parser) it passes on untouched and stops following: the parser
/// decides.
final class DeclaredBodyGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// Reading a request head, kept in `line` until its blank line.
        case head
        /// Bytes left of a `Content-Length` body.
        case fixed(Int64)
        /// Reading a chunk-size line, kept in `line`.
        case chunkSize
        /// Bytes left of a chunk, its closing CRLF included.
        case chunkData(Int64)
        /// Reading trailer lines until an empty one.
        case trailers
        /// No longer followed: bytes pass as they are.
        case passing
        /// The request was refused: nothing more is read.
        case refused
    }

    /// The most a head (or a line) may take before the guard leaves it to the parser, which refuses less already.
    private static let maximumHeadBytes = RequestLimits.guardedHeadBytes

    private let maximumBodyBytes: Int64
    private var state = State.head
    /// The head or line read so far, when it spans reads.
    private var line: [UInt8] = []
    /// The chunk sizes the current request declared so far.
    private var declared: Int64 = 0

    init(maximumBodyBytes: Int64) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .refused:
            return
        case .passing:
            context.fireChannelRead(data)
            return
        default:
            break
        }
        let buffer = unwrapInboundIn(data)
        let refusal = buffer.withUnsafeReadableBytes { follow($0) }
        context.fireChannelRead(data)
        if let refusal {
            state = .refused
            context.fireErrorCaught(refusal)
        }
    }

    /// Moves through `bytes`; answers the error to fail the request with when a declared size is too large.
    private func follow(_ bytes: UnsafeRawBufferPointer) -> APIError? {
        var index = 0
        while index < bytes.count {
            switch state {
            case .head where line.isEmpty:
                // The usual case, a head whole in one read: found where it ends without copying it byte by byte.
                while index < bytes.count, bytes[index] == 13 || bytes[index] == 10 { index += 1 }
                guard let end = Self.headEnd(in: bytes, from: index) else {
                    line.append(contentsOf: bytes[index...])
                    if line.count > Self.maximumHeadBytes { state = .passing }
                    return nil
                }
                state = Self.bodyState(ofHead: Array(bytes[index..<end]))
                declared = 0
                index = end
            case .head:
                let byte = bytes[index]
                index += 1
                // Empty lines before a request line are allowed.
                if line.isEmpty, byte == 13 || byte == 10 { continue }
                line.append(byte)
                if byte == 10, line.count >= 2, line[line.count - 2] == 10 || (line.count >= 4 && line[line.count - 2] == 13 && line[line.count - 3] == 10) {
                    state = Self.bodyState(ofHead: line)
                    line.removeAll(keepingCapacity: true)
                    declared = 0
                } else if line.count > Self.maximumHeadBytes {
                    state = .passing
                }
            case .fixed(let left):
                let taken = min(left, Int64(bytes.count - index))
                index += Int(taken)
                state = taken == left ? .head : .fixed(left - taken)
            case .chunkData(let left):
                let taken = min(left, Int64(bytes.count - index))
                index += Int(taken)
                state = taken == left ? .chunkSize : .chunkData(left - taken)
            case .chunkSize, .trailers:
                let byte = bytes[index]
                index += 1
                line.append(byte)
                if byte == 10 {
                    if case .chunkSize = state {
                        if let refusal = readChunkSize() { return refusal }
                    } else if line.count <= 2 {
                        state = .head
                    }
                    line.removeAll(keepingCapacity: true)
                } else if line.count > Self.maximumHeadBytes {
                    state = .passing
                }
            case .passing, .refused:
                return nil
            }
        }
        return nil
    }

    /// Reads the chunk-size line in `line`, moving to the chunk, or to the trailers after the last one.
    private func readChunkSize() -> APIError? {
        var size: Int64 = 0
        var digits = 0
        for byte in line {
            let value: Int64
            switch byte {
            case 48...57: value = Int64(byte - 48)
            case 65...70: value = Int64(byte - 55)
            case 97...102: value = Int64(byte - 87)
            default: value = -1
            }
            guard value >= 0 else { break }
            digits += 1
            // Past the limit, the size is too large whatever digits follow (leading zeros never pass it).
            guard size <= maximumBodyBytes else { return tooLarge() }
            size = size * 16 + value
        }
        guard digits > 0 else {
            // Not a chunk size: the parser refuses it.
            state = .passing
            return nil
        }
        declared += size
        guard size <= maximumBodyBytes, declared <= maximumBodyBytes else { return tooLarge() }
        state = size == 0 ? .trailers : .chunkData(size + 2)
        return nil
    }

    private func tooLarge() -> APIError {
        APIError(.quotaExceeded, "the request body declares more than \(maximumBodyBytes) bytes, the most this server takes")
    }

    /// Where the head starting at `start` ends (after its blank line), when `bytes` hold all of it.
    private static func headEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 10 {
                if bytes[index + 1] == 10 { return index + 2 }
                if bytes[index + 1] == 13, index + 2 < bytes.count, bytes[index + 2] == 10 { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// What follows a head: a body of its `Content-Length`, chunks, or the next head.
    private static func bodyState(ofHead head: [UInt8]) -> State {
        var chunked = false
        var length: Int64 = 0
        var lines = head.split(separator: 10, omittingEmptySubsequences: true).dropFirst().makeIterator()
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: 58) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            switch name.trimmingCharacters(in: .whitespaces) {
            case "transfer-encoding":
                chunked = value.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) == "chunked"
            case "content-length":
                length = Int64(value) ?? 0
            case "upgrade":
                return .passing
            default:
                continue
            }
        }
        if chunked { return .chunkSize }
        return length > 0 ? .fixed(length) : .head
    }
}
