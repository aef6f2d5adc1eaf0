import Testing
@testable import StratusServer
import StratusServices

@Suite struct SessionCacheTests {
    @Test("a cached token answers until its session is forgotten, and only that session's tokens go")
    func forgetting() {
        let cache = SessionCache()
        cache.remember(token: "t1", sessionID: "s1", userRecordName: "_a", expiresAt: 2_000)
        cache.remember(token: "t2", sessionID: "s1", userRecordName: "_a", expiresAt: 2_000)
        cache.remember(token: "t3", sessionID: "s2", userRecordName: "_b", expiresAt: 2_000)
        #expect(cache.userRecordName(ofToken: "t1", now: 1_000) == "_a")
        cache.forget(session: "s1")
        #expect(cache.userRecordName(ofToken: "t1", now: 1_000) == nil)
        #expect(cache.userRecordName(ofToken: "t2", now: 1_000) == nil)
        #expect(cache.userRecordName(ofToken: "t3", now: 1_000) == "_b")
    }

    @Test("an expired token, or one not re-checked within the time to live, is not answered from the cache")
    func expiry() async throws {
        let cache = SessionCache(timeToLive: .milliseconds(20))
        cache.remember(token: "t1", sessionID: "s1", userRecordName: "_a", expiresAt: 2_000)
        #expect(cache.userRecordName(ofToken: "t1", now: 3_000) == nil)
        cache.remember(token: "t2", sessionID: "s2", userRecordName: "_b", expiresAt: 2_000)
        try await Task.sleep(for: .milliseconds(40))
        #expect(cache.userRecordName(ofToken: "t2", now: 1_000) == nil)
    }
}
