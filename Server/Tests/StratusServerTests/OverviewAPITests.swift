import StratusServices
import Foundation
import HTTPTypes
import StratusModel
import StratusStore
@testable import StratusServer
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's landing page: the server at a glance over the containers the caller may see.
@Suite struct OverviewAPITests {
    static func overview(_ client: TestClient, headers: HTTPFields) async throws -> ServerOverview {
        let reply = try await client.send(.get, "/admin/1/overview", headers: headers)
        guard reply.status == 200 else { throw TestFailure("overview: \(reply.status) \(reply.json)") }
        return try SignInPageAPITests.decode(reply)
    }

    @Test("today's requests and errors, active users, storage, failing webhooks and mail waiting, per container and in all")
    func atAGlance() async throws {
        try await TestServer.run(configure: { configuration in
            configuration.telemetryFlushInterval = 0.1
            configuration.webhooksAllowPrivate = true
        }) { client in
            let token = try await client.createContainer()
            _ = try await client.createContainer("iCloud.com.example.Other")
            let ann = try await client.signUp("ann@example.com", token: token)
            let created = try await ann.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"hi"}}}}]}"#)
            #expect(created.status == 200, "\(created.json)")
            #expect(try await ann.post("private", "records/modify", #"{"operations":"nope"}"#).status == 400)
            _ = try await client.send(.post, "/admin/1/usage/measure", headers: client.admin)
            let hook = try await client.send(.post, "/admin/1/\(TestServer.container)/development/webhooks", body: #"{"url":"http://127.0.0.1:9/in"}"#, headers: client.admin)
            let hookID = try #require(hook.string("id"), "\(hook.json)")
            var endpoint = try #require(try await client.parts.store.webhookEndpoint(id: hookID, containerID: TestServer.container))
            endpoint.failingSince = ServerClock.now() - 60_000
            try await client.parts.store.updateWebhookEndpoint(endpoint)

            var overview = try await Self.overview(client, headers: client.admin)
            try await Polling.until("the overview counts the sign-up and both record calls") {
                overview = try await Self.overview(client, headers: client.admin)
                return overview.requestsToday >= 3 && overview.errorsToday >= 1
            } describe: {
                "\(overview)"
            }
            #expect(overview.activeUsersToday == 1 && overview.mailWaiting == 1 && !overview.smtpConfigured, "the verification mail waits: \(overview)")
            #expect(overview.privateBytes > 0 && overview.storageMeasuredAt != nil, "\(overview)")
            #expect(overview.failingWebhooks.map(\.id) == [hookID] && overview.failingWebhooks.first?.enabled == true)
            #expect(overview.backups == ServerOverview.Backups(configured: false))
            #expect(overview.containers.map(\.containerID) == ["iCloud.com.example.Other", TestServer.container])
            let ours = try #require(overview.containers.last)
            #expect(ours.requestsToday == overview.requestsToday && ours.mailWaiting == 1 && ours.activeUsersToday == 1)
            #expect(overview.day == ServerClock.now() / 86_400_000 * 86_400_000)

            // An operator sees the containers they hold a role in, and nothing of the others.
            let viewer = try await PeopleAPITests.operatorSession(client, "viewer@example.com", roles: #"{"iCloud.com.example.Other":"viewer"}"#)
            let theirs = try await Self.overview(client, headers: viewer.headers)
            #expect(theirs.containers.map(\.containerID) == ["iCloud.com.example.Other"] && theirs.requestsToday == 0 && theirs.failingWebhooks.isEmpty)
            #expect(theirs.mailWaiting == 0 && theirs.activeUsersToday == 0, "\(theirs)")
            #expect(try await client.send(.get, "/admin/1/overview").status == 401)
        }
    }
}
