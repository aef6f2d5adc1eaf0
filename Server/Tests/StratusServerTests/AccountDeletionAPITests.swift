import Foundation
import StratusModel
import StratusStore
import StratusStoreTesting
import Testing

/// Users deleting their accounts, and operators deleting users.
@Suite struct AccountDeletionAPITests {
    static let body = #"{"emailAddress":"alice@example.com","password":"correct horse"}"#

    @Test("a user deletes their account with the password: every node refuses it at once, its data is gone, its address free")
    func deleteWithPassword() async throws {
        try await TestServer.runNodes(2) { nodes in
            let (one, two) = (nodes[0], nodes[1])
            let token = try await one.createContainer()
            var alice = try await one.signUp("alice@example.com", token: token)
            let session = try #require(alice.webAuthToken)
            let zone = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            #expect(zone.status == 200)
            let saved = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"secret"}}}}]}"#)
            #expect(saved.status == 200, "\(saved.json)")
            let post = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Post","fields":{}}}]}"#)
            #expect(post.status == 200)
            let other = try await two.auth("signin", Self.body, token: token)
            let otherSession = try #require(other.string("ckWebAuthToken"))

            let wrong = try await one.auth("account/delete", #"{"password":"not the password"}"#, token: token, session: session)
            #expect(wrong.status == 401)
            #expect(try await two.isSignedIn(otherSession, token: token))
            let deleted = try await one.auth("account/delete", #"{"password":"correct horse"}"#, token: token, session: session)
            #expect(deleted.status == 200 && deleted["deleted"] == .bool(true), "\(deleted.json)")
            for node in nodes {
                #expect(try await !node.isSignedIn(session, token: token))
                #expect(try await !node.isSignedIn(otherSession, token: token))
            }
            #expect(try await two.auth("signin", Self.body, token: token).status == 401)
            #expect(try await one.parts.store.account(containerID: TestServer.container, userRecordName: alice.userRecordName) == nil)
            let database = DatabaseRef.privateDatabase(TestServer.container, .development, owner: alice.userRecordName)
            #expect(try await one.parts.store.zones(in: database).map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
            // The container keeps public records of deleted users unless it says otherwise.
            let kept = try await one.parts.store.lookupRecords(["p1"], in: DatabaseRef.publicDatabase(TestServer.container, .development).zone("_defaultZone"))
            #expect(kept.count == 1)

            let again = try await one.signUp("alice@example.com", token: token)
            #expect(again.userRecordName != alice.userRecordName)
            alice.webAuthToken = nil
        }
    }

    @Test("a deletion is confirmed by a mailed code, or by a sign-in minutes old; the container may delete public records too")
    func deleteWithCodeOrFreshSignIn() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let settings = try await client.send(
                .put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"deletedUserPublicRecords":"delete"}"#, headers: client.admin
            )
            #expect(settings.status == 200)
            let alice = try await client.signUp("alice@example.com", token: token)
            let session = try #require(alice.webAuthToken)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Post","fields":{}}}]}"#)
            #expect(try await client.auth("account/delete/send", "{}", token: token, session: session).status == 202)
            let mail = try await sink.waitForMessages(count: 2).last
            #expect(mail?.subject.contains("deletion") == true)
            let code = try #require(mail?.code)
            let deleted = try await client.auth("account/delete", #"{"code":"\#(code)"}"#, token: token, session: session)
            #expect(deleted.status == 200, "\(deleted.json)")
            let publicZone = DatabaseRef.publicDatabase(TestServer.container, .development).zone("_defaultZone")
            #expect(try await client.parts.store.lookupRecords(["p1", alice.userRecordName], in: publicZone).isEmpty)

            let bob = try await client.signUp("bob@example.com", token: token)
            let fresh = try await client.auth("account/delete", "{}", token: token, session: try #require(bob.webAuthToken))
            #expect(fresh.status == 200, "a sign-in seconds old confirms: \(fresh.json)")
        }
    }

    @Test("an operator deletes a user; a deletion a crash interrupted is finished by the deleter")
    func operatorAndInterrupted() async throws {
        try await TestServer.run(configure: { $0.accountDeletionSweepInterval = 0.2 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let deleted = try await client.send(.delete, "/admin/1/\(TestServer.container)/development/users/\(alice.userRecordName)", headers: client.admin)
            #expect(deleted.status == 200, "\(deleted.json)")
            #expect(try await !client.isSignedIn(try #require(alice.webAuthToken), token: token))
            let missing = try await client.send(.delete, "/admin/1/\(TestServer.container)/development/users/\(alice.userRecordName)", headers: client.admin)
            #expect(missing.status == 404)

            // A deletion that began and never finished (the process died) is finished by the deleter.
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await client.parts.store.beginAccountDeletion(containerID: TestServer.container, userRecordName: bob.userRecordName)
            #expect(try await client.auth("signin", #"{"emailAddress":"bob@example.com","password":"correct horse"}"#, token: token).status == 401)
            let deadline = ContinuousClock.now + .seconds(60)
            while try await client.parts.store.account(containerID: TestServer.container, userRecordName: bob.userRecordName) != nil {
                guard ContinuousClock.now < deadline else { throw TestFailure("the interrupted deletion was not finished within 60 s") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
