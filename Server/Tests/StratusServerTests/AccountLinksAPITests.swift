import Foundation
import HTTPTypes
import StratusModel
import StratusStoreTesting
import Testing

/// The pages the links in account mail open.
@Suite struct AccountLinksAPITests {
    static let body = #"{"emailAddress":"alice@example.com","password":"correct horse"}"#

    @Test("a reset link shows a form, refuses mismatched or short passwords, then changes it once and signs everyone out")
    func resetLink() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let session = try #require(try await client.auth("signup", Self.body, token: token).string("ckWebAuthToken"))
            _ = try await client.auth("password/reset/send", #"{"emailAddress":"alice@example.com"}"#, token: token)
            let link = try #require(try await sink.waitForMessages(count: 2)[1].linkToken)
            let path = "/account/1/\(TestServer.container)/development/link"

            let page = try await client.send(.get, path + "?token=\(link)")
            let html = (page.json.stringValue ?? "")
            #expect(page.status == 200 && html.contains("Choose a new password") && html.contains("name=\"newPassword\""), "\(html)")
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            #expect(try await client.isSignedIn(session, token: token), "showing the page uses nothing up")

            let form = [HTTPField(name: .contentType, value: "application/x-www-form-urlencoded")]
            let mismatch = try await client.send(.post, path, body: "token=\(link)&newPassword=battery+staple&confirmPassword=battery+stapler", headers: HTTPFields(form))
            #expect(mismatch.status == 400 && (mismatch.json.stringValue ?? "").contains("The two passwords differ"))
            let changed = try await client.send(.post, path, body: "token=\(link)&newPassword=battery+staple&confirmPassword=battery+staple", headers: HTTPFields(form))
            #expect(changed.status == 200 && (changed.json.stringValue ?? "").contains("Your password is changed"), "\(changed.json)")
            #expect(try await !client.isSignedIn(session, token: token))
            #expect(try await client.auth("signin", #"{"emailAddress":"alice@example.com","password":"battery staple"}"#, token: token).status == 200)
            let spent = try await client.send(.get, path + "?token=\(link)")
            #expect(spent.status == 400 && (spent.json.stringValue ?? "").contains("This link no longer works"))
            let made = try await client.send(.get, path + "?token=made-up")
            #expect(made.status == 400)
        }
    }

    @Test("a verification link confirms with a button; a sign-in link sends the user to the app; names are escaped")
    func verificationLink() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"appName":"<Notes>"}"#, headers: client.admin)
            let session = try #require(try await client.auth("signup", Self.body, token: token).string("ckWebAuthToken"))
            let link = try #require(try await sink.waitForMessages(count: 1)[0].linkToken)
            let path = "/account/1/\(TestServer.container)/development/link"
            let page = try await client.send(.get, path + "?token=\(link)")
            #expect((page.json.stringValue ?? "").contains("&lt;Notes&gt;") && !(page.json.stringValue ?? "").contains("<Notes>"))
            let confirmed = try await client.send(
                .post, path, body: "token=\(link)", headers: [.contentType: "application/x-www-form-urlencoded"]
            )
            #expect(confirmed.status == 200 && (confirmed.json.stringValue ?? "").contains("is confirmed"))
            #expect(try await client.authGet("account", token: token, session: session)["emailVerified"] == .bool(true))

            _ = try await client.auth("signin/code/send", #"{"emailAddress":"alice@example.com"}"#, token: token)
            let signInLink = try #require(try await sink.waitForMessages(count: 2)[1].linkToken)
            let signInPage = try await client.send(.get, path + "?token=\(signInLink)")
            #expect((signInPage.json.stringValue ?? "").contains("enter the code from the message there"))
        }
    }
}
