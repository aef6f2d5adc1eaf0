@testable import StratusServer
import Testing

/// The throttle's rules on an explicit clock.
@Suite struct SignInThrottleTests {
    let start = ContinuousClock.now

    @Test("an address waits after five failures on an account, doubling; the account's other addresses do not")
    func perAccountAndAddress() {
        let throttle = SignInThrottle()
        for second in 0..<5 {
            #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .seconds(second)) == nil)
            throttle.recordFailure(account: "c|alice", address: "a", now: start + .seconds(second))
        }
        // Five seconds from the fifth failure.
        #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .milliseconds(4_500)) == 5)
        #expect(throttle.retryAfter(account: "c|alice", address: "b", now: start + .milliseconds(4_500)) == nil)
        #expect(throttle.retryAfter(account: "c|bob", address: "a", now: start + .milliseconds(4_500)) == nil)
        #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .milliseconds(9_500)) == nil)
        // Ten seconds from the sixth.
        throttle.recordFailure(account: "c|alice", address: "a", now: start + .milliseconds(9_500))
        #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .milliseconds(10_500)) == 9)
        #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .seconds(20)) == nil)
        throttle.recordFailure(account: "c|alice", address: "a", now: start + .seconds(20))
        throttle.recordSuccess(account: "c|alice", address: "a")
        #expect(throttle.retryAfter(account: "c|alice", address: "a", now: start + .seconds(20)) == nil)
    }

    @Test("an address that fails on many accounts waits for all of them")
    func perAddress() {
        let throttle = SignInThrottle()
        for index in 0..<30 {
            throttle.recordFailure(account: "c|user\(index)", address: "a", now: start)
        }
        #expect(throttle.retryAfter(account: "c|someone", address: "a", now: start) == 5)
        #expect(throttle.retryAfter(account: "c|someone", address: "b", now: start) == nil)
        #expect(throttle.retryAfter(account: "c|someone", address: "a", now: start + .seconds(6)) == nil)
        // Failures older than the window are forgotten.
        #expect(throttle.retryAfter(account: "c|someone", address: "a", now: start + .seconds(901)) == nil)
    }
}
