import Foundation
import StratusModel
import Testing

@Suite struct DiscoveryAPITests {
    @Test("users are found by email, phone or record name only once they make themselves discoverable, and not after")
    func discoverability() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let signedUp = try await client.send(
                .post, "/auth/1/\(TestServer.container)/development/signup?ckAPIToken=\(token)",
                body: #"{"emailAddress":"bob@example.com","password":"correct horse","givenName":"Bob","familyName":"Builder","phoneNumber":"+1 (555) 010-2030"}"#
            )
            guard case .string(let bobToken)? = signedUp["ckWebAuthToken"], case .string(let bobName)? = signedUp["userRecordName"] else {
                Issue.record("\(signedUp.json)"); return
            }
            let bob = UserSession(client: client, apiToken: token, webAuthToken: bobToken, userRecordName: bobName)
            let lookups = #"{"lookupInfos":[{"emailAddress":"BOB@example.com"},{"phoneNumber":"+15550102030"},{"userRecordName":"\#(bobName)"},{"emailAddress":"nobody@example.com"}]}"#
            let hidden = try await alice.post("public", "users/discover", lookups)
            #expect(hidden["users"] == .array([]))

            let optIn = try await client.send(.post, "/auth/1/\(TestServer.container)/development/discoverability?\(bob.query)", body: #"{"discoverable":true}"#)
            #expect(optIn["discoverable"] == .bool(true))
            let found = try await alice.post("public", "users/discover", lookups)
            guard case .array(let users)? = found["users"] else { Issue.record("\(found.json)"); return }
            #expect(users.count == 3)
            #expect(users.allSatisfy { $0.objectValue?["userRecordName"] == .string(bobName) })
            #expect(users.first?.objectValue?["nameComponents"] == .object(["givenName": .string("Bob"), "familyName": .string("Builder")]))
            #expect(users[1].objectValue?["lookupInfo"] == .object(["phoneNumber": .string("+15550102030")]))
            let byEmail = try await alice.post("public", "users/lookup/email", #"{"users":[{"emailAddress":"bob@example.com"}]}"#)
            guard case .array(let legacy)? = byEmail["users"] else { Issue.record("\(byEmail.json)"); return }
            #expect(legacy.first?.objectValue?["firstName"] == .string("Bob"))
            let byID = try await alice.post("public", "users/lookup/id", #"{"users":[{"userRecordName":"\#(bobName)"}]}"#)
            #expect((byID["users"].map { if case .array(let items) = $0 { items.count } else { 0 } }) == 1)

            _ = try await client.send(.post, "/auth/1/\(TestServer.container)/development/discoverability?\(bob.query)", body: #"{"discoverable":false}"#)
            let hiddenAgain = try await alice.post("public", "users/discover", lookups)
            #expect(hiddenAgain["users"] == .array([]))
        }
    }

    @Test("discovery refuses anonymous callers, empty lookup infos and malformed phone numbers; phone numbers are unique")
    func refusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            #expect(try await alice.anonymous.post("public", "users/discover", #"{"lookupInfos":[]}"#).errorCode == "AUTHENTICATION_REQUIRED")
            #expect(try await alice.post("public", "users/discover", #"{"lookupInfos":[{}]}"#).errorCode == "BAD_REQUEST")
            #expect(try await alice.post("public", "users/discover", #"{"lookupInfos":[{"phoneNumber":"call me"}]}"#).errorCode == "BAD_REQUEST")
            let anonymous = try await client.send(.post, "/auth/1/\(TestServer.container)/development/discoverability?ckAPIToken=\(token)", body: #"{"discoverable":true}"#)
            #expect(anonymous.errorCode == "AUTHENTICATION_REQUIRED")
            let signUp = { (email: String) in
                try await client.send(.post, "/auth/1/\(TestServer.container)/development/signup?ckAPIToken=\(token)",
                    body: #"{"emailAddress":"\#(email)","password":"correct horse","phoneNumber":"+44 20 7946 0000"}"#)
            }
            #expect(try await signUp("c@example.com").status == 201)
            #expect(try await signUp("d@example.com").errorCode == "EXISTS")
        }
    }
}
