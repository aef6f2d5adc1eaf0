@testable import StratusServer
import StratusServices
import StratusStore
import StratusTestSupport
import Testing

/// The throttle's rules on an explicit clock (milliseconds), on a store of the backend under test.
@Suite struct SignInThrottleTests {
    let start: Int64 = 1_700_000_000_000

    /// Runs `body` with a throttle on a fresh store.
    func withThrottle(_ body: (SignInThrottle) async throws -> Void) async throws {
        let folder = try TestFolder("stratus-throttle")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        do {
            try await body(SignInThrottle(store: store))
        } catch {
            await StoreFactory.current.releaseStore(store, folder.path)
            throw error
        }
        await StoreFactory.current.releaseStore(store, folder.path)
    }

    @Test("an address waits after five failures on an account, doubling; the account's other addresses do not")
    func perAccountAndAddress() async throws {
        try await withThrottle { throttle in
            for second: Int64 in 0..<5 {
                #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + second * 1000) == nil)
                try await throttle.recordFailure(account: "c|alice", address: "a", now: start + second * 1000)
            }
            // Five seconds from the fifth failure.
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 4_500) == 5)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "b", now: start + 4_500) == nil)
            #expect(try await throttle.retryAfter(account: "c|bob", address: "a", now: start + 4_500) == nil)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 9_500) == nil)
            // Ten seconds from the sixth.
            try await throttle.recordFailure(account: "c|alice", address: "a", now: start + 9_500)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 10_500) == 9)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 20_000) == nil)
            try await throttle.recordFailure(account: "c|alice", address: "a", now: start + 20_000)
            try await throttle.recordSuccess(account: "c|alice", address: "a")
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 20_000) == nil)
        }
    }

    @Test("an address that fails on many accounts waits for all of them")
    func perAddress() async throws {
        try await withThrottle { throttle in
            for index in 0..<30 {
                try await throttle.recordFailure(account: "c|user\(index)", address: "a", now: start)
            }
            #expect(try await throttle.retryAfter(account: "c|someone", address: "a", now: start) == 5)
            #expect(try await throttle.retryAfter(account: "c|someone", address: "b", now: start) == nil)
            #expect(try await throttle.retryAfter(account: "c|someone", address: "a", now: start + 6_000) == nil)
            // Failures older than the window are forgotten.
            #expect(try await throttle.retryAfter(account: "c|someone", address: "a", now: start + 901_000) == nil)
        }
    }

    @Test("a longer first pause doubles from there, and is still capped at 15 minutes")
    func configuredPause() async throws {
        try await withThrottle { defaults in
            var throttle = defaults
            throttle.firstPause = 60_000
            for second: Int64 in 0..<5 {
                try await throttle.recordFailure(account: "c|alice", address: "a", now: start + second * 1000)
            }
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 4_000) == 60)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 64_000) == nil)
            try await throttle.recordFailure(account: "c|alice", address: "a", now: start + 64_000)
            #expect(try await throttle.retryAfter(account: "c|alice", address: "a", now: start + 64_000) == 120)
            #expect(throttle.pause(afterFailures: 30, allowed: 5) == 900_000)
        }
    }

    @Test("two server processes sharing a store count the same failures")
    func sharedAcrossNodes() async throws {
        let folder = try TestFolder("stratus-throttle")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        do {
            let nodeA = SignInThrottle(store: store)
            let nodeB = SignInThrottle(store: store)
            for attempt: Int64 in 0..<5 {
                let node = attempt.isMultiple(of: 2) ? nodeA : nodeB
                try await node.recordFailure(account: "c|alice", address: "a", now: start + attempt)
            }
            #expect(try await nodeA.retryAfter(account: "c|alice", address: "a", now: start + 10) == 5)
            #expect(try await nodeB.retryAfter(account: "c|alice", address: "a", now: start + 10) == 5)
        } catch {
            await StoreFactory.current.releaseStore(store, folder.path)
            throw error
        }
        await StoreFactory.current.releaseStore(store, folder.path)
    }
}
