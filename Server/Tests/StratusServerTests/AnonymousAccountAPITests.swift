import StratusServices
import Foundation
import Logging
import StratusModel
@testable import StratusServer
import StratusStoreTesting
import Testing

/// Accounts that start anonymous: used like any other, then given an address and password or a passkey while
/// keeping their user record name and data; unused ones removed after the container's period.
@Suite struct AnonymousAccountAPITests {
    static let note = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"kept"}}}}]}"#

    @Test("an anonymous account writes its private database, then gets an address and password and signs in elsewhere to the same data")
    func upgradeKeepsData() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let made = try await client.auth("signup/anonymous", #"{"deviceName":"Phone"}"#, token: token)
            #expect(made.status == 201 && made["anonymous"] == .bool(true), "\(made.json)")
            let session = try #require(made.string("ckWebAuthToken"))
            let user = try #require(made.string("userRecordName"))
            let phone = UserSession(client: client, apiToken: token, webAuthToken: session, userRecordName: user)
            #expect(try await phone.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
            #expect(try await phone.post("private", "records/modify", Self.note).status == 200)
            let before = try await client.authGet("account", token: token, session: session)
            #expect(before["anonymous"] == .bool(true) && before["emailAddress"] == nil && before["hasPassword"] == .bool(false), "\(before.json)")
            let caller = try await phone.get("public", "users/caller")
            #expect(caller.status == 200 && caller.string("userRecordName") == user, "\(caller.json)")

            let short = try await client.auth("account/attach/password", #"{"emailAddress":"ann@example.com","password":"short"}"#, token: token, session: session)
            #expect(short.status == 400, "\(short.json)")
            let attached = try await client.auth(
                "account/attach/password", #"{"emailAddress":"Ann@Example.com","password":"correct horse"}"#, token: token, session: session
            )
            #expect(attached.status == 200 && attached["anonymous"] == .bool(false) && attached.string("emailAddress") == "ann@example.com", "\(attached.json)")
            #expect(try await client.isSignedIn(session, token: token), "the device stays signed in")
            let again = try await client.auth("account/attach/password", #"{"emailAddress":"ann2@example.com","password":"correct horse"}"#, token: token, session: session)
            #expect(again.status == 400, "\(again.json)")

            let laptop = try await client.auth("signin", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token)
            #expect(laptop.string("userRecordName") == user, "\(laptop.json)")
            let elsewhere = UserSession(client: client, apiToken: token, webAuthToken: try #require(laptop.string("ckWebAuthToken")), userRecordName: user)
            let read = try await elsewhere.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"n1"}]}"#)
            #expect(read.records.first?["recordName"] == .string("n1"), "\(read.json)")

            // Another anonymous account cannot take an address that has an account.
            let second = try #require(try await client.auth("signup/anonymous", "{}", token: token).string("ckWebAuthToken"))
            let taken = try await client.auth("account/attach/password", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token, session: second)
            #expect(taken.status == 409 && taken.errorCode == "EXISTS", "\(taken.json)")
        }
    }

    @Test("an anonymous account adds a passkey with its session alone, and signs in with it elsewhere")
    func passkey() async throws {
        try await TestServer.run(configure: { $0.publicURL = PasskeyAPITests.origin }) { client in
            let token = try await client.createContainer()
            let made = try await client.auth("signup/anonymous", "{}", token: token)
            let session = try #require(made.string("ckWebAuthToken"))
            let authenticator = SoftwarePasskeys(origin: PasskeyAPITests.origin)
            let options: PasskeyCreationOptions = try await client.passkeyStep("passkeys/register/options", "{}", token: token, session: session)
            #expect(options.user.name.hasPrefix("account "))
            let added = try await client.auth("passkeys/register", try PasskeyAPITests.json(RegisterPasskeyRequest(credential: authenticator.register(options))), token: token, session: session)
            #expect(added.status == 201, "\(added.json)")
            #expect(try await client.authGet("account", token: token, session: session)["anonymous"] == .bool(false))
            let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let signedIn = try await client.auth("signin/passkey", try PasskeyAPITests.json(PasskeySignInRequest(credential: try #require(authenticator.assert(request)))), token: token)
            #expect(signedIn.string("userRecordName") == made.string("userRecordName"), "\(signedIn.json)")
        }
    }

    @Test("unused anonymous accounts go after the container's period; attached or recently used ones stay; one client makes at most 100 an hour")
    func expiryAndThrottle() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let settings = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"anonymousAccountLifetimeDays":2}"#, headers: client.admin)
            #expect(settings.status == 200, "\(settings.json)")
            #expect(try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"anonymousAccountLifetimeDays":-1}"#, headers: client.admin).status == 400)
            let unused = try #require(try await client.auth("signup/anonymous", "{}", token: token).string("ckWebAuthToken"))
            let kept = try #require(try await client.auth("signup/anonymous", "{}", token: token).string("ckWebAuthToken"))
            _ = try await client.auth("account/attach/password", #"{"emailAddress":"kept@example.com","password":"correct horse"}"#, token: token, session: kept)

            let deleter = AccountDeleter(store: client.parts.store, configuration: .forTests(), logger: Logger(label: "test"))
            try await deleter.expireAnonymousAccounts(now: ServerClock.now() + 86_400_000)
            #expect(try await client.isSignedIn(unused, token: token), "a day is within the period")
            try await deleter.expireAnonymousAccounts(now: ServerClock.now() + 3 * 86_400_000)
            #expect(try await !client.isSignedIn(unused, token: token), "an unused anonymous account is gone after the period")
            #expect(try await client.isSignedIn(kept, token: token), "an account with an address stays")

            var refused: Reply?
            for _ in 0..<AccountsController.anonymousSignUpsPerHour {
                let reply = try await client.auth("signup/anonymous", "{}", token: token)
                if reply.status != 201 { refused = reply; break }
            }
            let last = try await client.auth("signup/anonymous", "{}", token: token)
            let throttled = refused ?? last
            #expect(throttled.status == 429 && throttled.errorCode == "THROTTLED" && throttled["retryAfter"] != nil, "\(throttled.json)")
        }
    }
}
