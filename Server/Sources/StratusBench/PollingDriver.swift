#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Drives many keep-alive connections from one thread with `poll(2)`, one request in flight per
/// connection, so that the load generator costs the machine as little as possible.
struct PollingDriver {
    /// What each connection measured.
    struct Outcome {
        var latencies: [UInt64] = []
        var errors = 0
    }

    let host: String
    let port: Int

    /// Runs requests from `clients` connections until `workload` is done. `request` makes the bytes of
    /// request number `index`; with `checkItemErrors`, a 200 body that holds `serverErrorCode` is an error.
    func run(
        clients: Int, workload: Benchmark.Workload, checkItemErrors: Bool, request: (Int) -> [UInt8]
    ) throws -> Outcome {
        let start = ContinuousClock.now
        var deadline: ContinuousClock.Instant?
        var nextIndex = 0
        var total = Int.max
        switch workload {
        case .duration(let seconds): deadline = start + .milliseconds(Int(seconds * 1000))
        case .count(let count): total = count
        }
        var slots: [Slot] = []
        defer { for slot in slots { close(slot.socket) } }
        for _ in 0..<clients {
            slots.append(Slot(socket: try Self.connect(host: host, port: port)))
        }
        var outcome = Outcome()
        func startNext(_ slot: inout Slot) throws -> Bool {
            if let deadline, ContinuousClock.now >= deadline { return false }
            guard nextIndex < total else { return false }
            slot.outbound = request(nextIndex)
            nextIndex += 1
            slot.written = 0
            slot.started = ContinuousClock.now
            try slot.flush()
            return true
        }
        var active = 0
        for index in slots.indices where try startNext(&slots[index]) { active += 1 }
        var descriptors = [pollfd](repeating: pollfd(), count: slots.count)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while active > 0 {
            for (index, slot) in slots.enumerated() {
                descriptors[index] = pollfd(
                    fd: slot.isBusy ? slot.socket : -1,
                    events: Int16(slot.written < slot.outbound.count ? POLLOUT : POLLIN), revents: 0
                )
            }
            guard poll(&descriptors, nfds_t(descriptors.count), 5_000) > 0 else {
                throw BenchError("the server stopped answering")
            }
            for index in slots.indices where descriptors[index].revents != 0 {
                if slots[index].written < slots[index].outbound.count {
                    try slots[index].flush()
                    continue
                }
                let count = chunk.withUnsafeMutableBytes { read(slots[index].socket, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                guard count > 0 else { throw BenchError("the server closed a connection") }
                slots[index].inbound += chunk[0..<count]
                let parsed = slots[index].inbound.withUnsafeBytes { bytes -> (ResponseParser.Parsed, Bool)? in
                    guard let parsed = ResponseParser.parse(bytes) else { return nil }
                    let itemError = checkItemErrors && ResponseParser.hasItemError(UnsafeRawBufferPointer(rebasing: bytes[parsed.body]))
                    return (parsed, itemError)
                }
                guard let (response, itemError) = parsed else { continue }
                outcome.latencies.append(Benchmark.nanoseconds(ContinuousClock.now - slots[index].started))
                if response.status != 200 || itemError { outcome.errors += 1 }
                slots[index].inbound.removeFirst(response.length)
                slots[index].outbound = []
                if response.closes {
                    // The server (a proxy's keep-alive limit) ends the connection: open another, as clients do.
                    close(slots[index].socket)
                    slots[index] = Slot(socket: try Self.connect(host: host, port: port))
                }
                if try !startNext(&slots[index]) { active -= 1 }
            }
        }
        return outcome
    }

    /// One connection's state: the request being written, and the response being read.
    private struct Slot {
        let socket: Int32
        var outbound: [UInt8] = []
        var written = 0
        var inbound: [UInt8] = []
        var started = ContinuousClock.now

        /// Whether a request is in flight.
        var isBusy: Bool { !outbound.isEmpty }

        /// Writes as much of the request as the socket takes now.
        mutating func flush() throws {
            while written < outbound.count {
                let count = outbound[written...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
                guard count > 0 else { throw BenchError("the server closed a connection") }
                written += count
            }
        }
    }

    /// A connected, non-blocking TCP socket with Nagle's algorithm off.
    static func connect(host: String, port: Int) throws -> Int32 {
        let socket = try HTTPConnection.openSocket(host: host, port: port)
        let flags = fcntl(socket, F_GETFL, 0)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
        return socket
    }
}
