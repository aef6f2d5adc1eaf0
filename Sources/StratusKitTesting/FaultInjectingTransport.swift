import Foundation
import StratusKit

/// A ``Transport`` for an app's own tests: it passes requests to a real transport (a test server, or the app's
/// own test double), and injects what the field does to an app: no network, requests dropped before they reach the server,
/// answers lost after the server acted, `503` and `429` with a `retryAfter`, an ended session, slow answers and
/// event streams cut off. Chances are drawn from a seeded generator, so a failing test fails the same way again.
///
/// ```swift
/// let network = FaultInjectingTransport()
/// let container = Container(identifier: "iCloud.com.example.Notes", serverURL: testServer, apiToken: token, transport: network)
/// network.update { $0.offline = true }                       // edits stay pending
/// network.update { $0 = .init(dropBefore: 20, loseAnswer: 20, throttled: 10) }
/// try await engine.sendChanges()                             // … until it succeeds
/// print(network.injected)                                    // [.dropped: 3, .answerLost: 2, .throttled: 1]
/// ```
public final class FaultInjectingTransport: Transport, @unchecked Sendable {
    /// What to inject. Chances are percentages, drawn per request.
    public struct Faults: Sendable, Hashable {
        /// Every request fails with `networkUnavailable`, and event streams end at once.
        public var offline: Bool
        /// Requests that fail with `networkFailure` before reaching the server.
        public var dropBefore: Int
        /// Requests the server acts on whose answer is lost (`networkFailure`): the app must not apply them twice.
        public var loseAnswer: Int
        /// Requests answered `503 TRY_AGAIN_LATER` without reaching the server.
        public var unavailable: Int
        /// Requests answered `429 THROTTLED` without reaching the server.
        public var throttled: Int
        /// The `retryAfter` of injected `503` and `429` answers, in seconds.
        public var retryAfterSeconds: Int
        /// Requests made as the signed-in user are answered `421 AUTHENTICATION_REQUIRED`, as after the session
        /// ended on the server (signed out elsewhere, expired, the account disabled).
        public var sessionExpired: Bool
        /// Each request waits a random time up to this before it goes.
        public var maximumDelay: Duration
        /// Event streams end with `networkFailure` after this many chunks (`nil`: they run as the server sends).
        public var cutStreamsAfterChunks: Int?

        public init(
            offline: Bool = false, dropBefore: Int = 0, loseAnswer: Int = 0, unavailable: Int = 0, throttled: Int = 0,
            retryAfterSeconds: Int = 0, sessionExpired: Bool = false, maximumDelay: Duration = .zero, cutStreamsAfterChunks: Int? = nil
        ) {
            self.offline = offline
            self.dropBefore = dropBefore
            self.loseAnswer = loseAnswer
            self.unavailable = unavailable
            self.throttled = throttled
            self.retryAfterSeconds = retryAfterSeconds
            self.sessionExpired = sessionExpired
            self.maximumDelay = maximumDelay
            self.cutStreamsAfterChunks = cutStreamsAfterChunks
        }
    }

    /// A kind of fault, as counted in ``injected``.
    public enum Fault: String, Sendable, Hashable, CaseIterable {
        case offline, dropped, answerLost, unavailable, throttled, sessionExpired, streamCut
    }

    private let base: any Transport
    private let lock = NSLock()
    private var currentFaults = Faults()
    private var generator: SeededGenerator
    private var counts: [Fault: Int] = [:]
    private var requestCount = 0

    /// - Parameters:
    ///   - base: where requests that are let through go (`URLSessionTransport()` by default).
    ///   - seed: the seed of the chances; the same seed and requests inject the same faults.
    public init(wrapping base: any Transport = URLSessionTransport(), seed: UInt64 = 17) {
        self.base = base
        generator = SeededGenerator(seed: seed)
    }

    /// The faults injected from now on.
    public var faults: Faults { lock.withLock { currentFaults } }

    /// Changes the faults injected from now on.
    public func update(_ change: (inout Faults) -> Void) {
        lock.withLock { change(&currentFaults) }
    }

    /// Faults injected so far, by kind.
    public var injected: [Fault: Int] { lock.withLock { counts } }

    /// Requests sent through this transport so far (streams included).
    public var requests: Int { lock.withLock { requestCount } }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let (faults, delay) = lock.withLock { () -> (Faults, Duration) in
            requestCount += 1
            return (currentFaults, randomDelay(upTo: currentFaults.maximumDelay))
        }
        if faults.offline {
            count(.offline)
            throw StratusError(.networkUnavailable, "the device is offline (injected)")
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if faults.sessionExpired, Self.isSignedIn(request) {
            count(.sessionExpired)
            return Self.errorResponse(421, "AUTHENTICATION_REQUIRED", "the session ended (injected)", retryAfter: nil)
        }
        if roll(faults.dropBefore) {
            count(.dropped)
            throw StratusError(.networkFailure, "the request was dropped before it reached the server (injected)")
        }
        if roll(faults.unavailable) {
            count(.unavailable)
            return Self.errorResponse(503, "TRY_AGAIN_LATER", "the server is unavailable (injected)", retryAfter: faults.retryAfterSeconds)
        }
        if roll(faults.throttled) {
            count(.throttled)
            return Self.errorResponse(429, "THROTTLED", "too many requests (injected)", retryAfter: faults.retryAfterSeconds)
        }
        let response = try await base.send(request)
        if roll(faults.loseAnswer) {
            count(.answerLost)
            throw StratusError(.networkFailure, "the answer was lost after the server acted (injected)")
        }
        return response
    }

    public func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error> {
        let faults = lock.withLock { () -> Faults in
            requestCount += 1
            return currentFaults
        }
        if faults.offline {
            count(.offline)
            return AsyncThrowingStream { $0.finish(throwing: StratusError(.networkUnavailable, "the device is offline (injected)")) }
        }
        if faults.sessionExpired, Self.isSignedIn(request) {
            count(.sessionExpired)
            return AsyncThrowingStream { $0.finish(throwing: StratusError(.notAuthenticated, "the session ended (injected)", serverErrorCode: "AUTHENTICATION_REQUIRED")) }
        }
        let upstream = base.stream(request)
        guard let limit = faults.cutStreamsAfterChunks else { return upstream }
        return AsyncThrowingStream { continuation in
            let task = Task {
                var chunks = 0
                do {
                    for try await chunk in upstream {
                        if chunks == limit {
                            self.count(.streamCut)
                            continuation.finish(throwing: StratusError(.networkFailure, "the stream was cut (injected)"))
                            return
                        }
                        continuation.yield(chunk)
                        chunks += 1
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: - Drawing and counting

    private func roll(_ chance: Int) -> Bool {
        guard chance > 0 else { return false }
        return lock.withLock { Int(generator.next() % 100) } < chance
    }

    /// A random wait up to `maximum`; called with the lock held.
    private func randomDelay(upTo maximum: Duration) -> Duration {
        let limit = maximum.components.seconds * 1_000 + maximum.components.attoseconds / 1_000_000_000_000_000
        guard limit > 0 else { return .zero }
        return .milliseconds(Int64(generator.next() % UInt64(limit)))
    }

    private func count(_ fault: Fault) {
        lock.withLock { counts[fault, default: 0] += 1 }
    }

    private static func isSignedIn(_ request: TransportRequest) -> Bool {
        URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.contains { $0.name == "ckWebAuthToken" } ?? false
    }

    private static func errorResponse(_ status: Int, _ code: String, _ reason: String, retryAfter: Int?) -> TransportResponse {
        var body = #"{"serverErrorCode":"\#(code)","reason":"\#(reason)""#
        if let retryAfter { body += #","retryAfter":\#(retryAfter)"# }
        body += "}"
        var headers = ["Content-Type": "application/json"]
        if let retryAfter { headers["Retry-After"] = String(retryAfter) }
        return TransportResponse(status: status, headers: headers, body: Data(body.utf8))
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same draws on every platform, so a test that
/// draws from it fails the same way again.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
