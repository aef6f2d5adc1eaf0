import Foundation
import StratusKit
import Testing

@Suite struct AccountTests {
    @Test("sign-up, sign-in, the kept token across clients, sign-out, and the errors of each")
    func signingInAndOut() async throws {
        try await KitTestServer.run { server in
            let container = server.container()
            let id = try await container.signUp(email: "ann@example.com", password: "correct horse battery", givenName: "Ann")
            #expect(id.recordName.hasPrefix("_"))
            #expect(try await container.userRecordID() == id)
            await #expect { try await container.signUp(email: "ann@example.com", password: "another one") } throws: { error in
                (error as? StratusError)?.code == .serverRecordChanged
            }

            // A token kept from one client signs in another, and the caller is asked of the server.
            let kept = try #require(container.webAuthToken)
            let relaunched = server.container(webAuthToken: kept)
            #expect(try await relaunched.userRecordID() == id)
            _ = try await relaunched.privateCloudDatabase.allRecordZones()

            await #expect { try await server.container().signIn(email: "ann@example.com", password: "wrong") } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
            let again = server.container()
            #expect(try await again.signIn(email: "ann@example.com", password: "correct horse battery") == id)

            try await relaunched.signOut()
            #expect(!relaunched.isSignedIn)
            let stale = server.container(webAuthToken: kept)
            await #expect { try await stale.privateCloudDatabase.allRecordZones() } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
        }
    }

    @Test("repeated wrong passwords answer requestRateLimited with a retryAfter")
    func throttling() async throws {
        try await KitTestServer.run { server in
            _ = try await server.signedUp("bob@example.com")
            var last: StratusError?
            for _ in 0..<7 {
                do { try await server.container().signIn(email: "bob@example.com", password: "nope") } catch let error as StratusError { last = error }
            }
            #expect(last?.code == .requestRateLimited)
            #expect((last?.retryAfter ?? 0) > 0)
        }
    }

    @Test("users are discovered only once they make themselves discoverable")
    func discovery() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com", givenName: "Ann")
            let bob = try await server.signedUp("bob@example.com")
            #expect(try await bob.discoverUserIdentity(email: "ann@example.com") == nil)
            try await ann.setDiscoverable(true)
            let found = try await bob.discoverUserIdentity(email: "ann@example.com")
            #expect(found?.givenName == "Ann")
            #expect(found?.userRecordID == (try await ann.userRecordID()))
            try await ann.setDiscoverable(false)
            #expect(try await bob.discoverUserIdentities([.emailAddress("ann@example.com")]).isEmpty)
        }
    }
}
