import StratusModel
import StratusStore
import Testing

/// Webhook endpoints and deliveries.
extension StoreConformance {
    static var webhookCases: [ConformanceCase] {
        [
            ConformanceCase("webhook endpoints are made, changed, listed per container, turned off and deleted with their deliveries") { store in
                var endpoint = WebhookEndpoint(
                    id: "wh-1", containerID: Fixture.container, environment: .development, url: "https://hooks.example.com/a",
                    eventTypes: ["record.created"], recordTypes: ["Note"], sealedSecrets: ["s1"], createdAt: Fixture.now
                )
                try await store.createWebhookEndpoint(endpoint)
                try await store.createWebhookEndpoint(WebhookEndpoint(
                    id: "wh-2", containerID: "iCloud.other", environment: .production, url: "https://hooks.example.com/b", sealedSecrets: ["s2"],
                    createdAt: Fixture.now + 1
                ))
                #expect(try await store.webhookEndpoint(id: "wh-1", containerID: Fixture.container) == endpoint)
                #expect(try await store.webhookEndpoint(id: "wh-1", containerID: "iCloud.other") == nil)
                endpoint.sealedSecrets = ["s3", "s1"]
                endpoint.zoneNames = ["inbox"]
                try await store.updateWebhookEndpoint(endpoint)
                #expect(try await store.webhookEndpoints(containerID: Fixture.container) == [endpoint])
                #expect(try await store.enabledWebhookEndpoints().map(\.id) == ["wh-1", "wh-2"])
                try await store.disableWebhookEndpoint(id: "wh-2", containerID: "iCloud.other", reason: "failing for 3 days")
                #expect(try await store.enabledWebhookEndpoints().map(\.id) == ["wh-1"])
                #expect(try await store.webhookEndpoint(id: "wh-2", containerID: "iCloud.other")?.disabledReason == "failing for 3 days")
                try await store.deleteWebhookEndpoint(id: "wh-1", containerID: Fixture.container)
                await #expect {
                    try await store.deleteWebhookEndpoint(id: "wh-1", containerID: Fixture.container)
                } throws: { error in (error as? StorageError)?.code == .notFound }
            },
            ConformanceCase("deliveries go one at a time per endpoint and key, in order; a failure holds its line until retried; replays resend") { store in
                for id in ["wh-a", "wh-b"] {
                    try await store.createWebhookEndpoint(WebhookEndpoint(
                        id: id, containerID: Fixture.container, environment: .development, url: "https://hooks.example.com/" + id, sealedSecrets: ["s"],
                        createdAt: Fixture.now
                    ))
                }
                func pending(_ endpoint: String, _ key: String, _ event: String) -> PendingWebhookDelivery {
                    PendingWebhookDelivery(
                        endpointID: endpoint, containerID: Fixture.container, environment: .development, orderingKey: key, eventID: event,
                        eventType: "record.created", body: #"{"id":"\#(event)"}"#
                    )
                }
                try await store.queueWebhookDeliveries(
                    [pending("wh-a", "zone-1", "e1"), pending("wh-a", "zone-1", "e2"), pending("wh-a", "zone-2", "e3"), pending("wh-b", "zone-1", "e4")],
                    now: Fixture.now
                )
                var due = try await store.dueWebhookDeliveries(now: Fixture.now, limit: 10)
                #expect(due.map(\.eventID) == ["e1", "e3", "e4"], "saw \(due.map(\.eventID))")
                let first = try #require(due.first)
                try await store.recordWebhookAttempt(
                    WebhookAttempt(statusCode: 500, response: "boom", latency: 12, at: Fixture.now), deliveryID: first.id, retryAt: Fixture.now + 1000
                )
                due = try await store.dueWebhookDeliveries(now: Fixture.now, limit: 10)
                #expect(due.map(\.eventID) == ["e3", "e4"], "e1 waits, and e2 behind it: \(due.map(\.eventID))")
                #expect(try await store.webhookEndpoint(id: "wh-a", containerID: Fixture.container)?.failingSince == Fixture.now)
                due = try await store.dueWebhookDeliveries(now: Fixture.now + 1000, limit: 10)
                #expect(due.map(\.eventID) == ["e1", "e3", "e4"])
                try await store.recordWebhookAttempt(
                    WebhookAttempt(statusCode: 204, response: "", latency: 5, at: Fixture.now + 1000), deliveryID: first.id, retryAt: 0
                )
                due = try await store.dueWebhookDeliveries(now: Fixture.now + 1000, limit: 10)
                #expect(due.map(\.eventID) == ["e2", "e3", "e4"], "saw \(due.map(\.eventID))")
                #expect(try await store.webhookEndpoint(id: "wh-a", containerID: Fixture.container)?.failingSince == nil)
                let listed = try await store.webhookDeliveries(endpointID: "wh-a", containerID: Fixture.container, before: nil, limit: 10)
                #expect(listed.map(\.eventID) == ["e3", "e2", "e1"] && listed.last?.status == .delivered && listed.last?.attempts == 2, "saw \(listed)")
                #expect(listed.last?.lastStatusCode == 204 && listed.last?.deliveredAt == Fixture.now + 1000)

                try await store.disableWebhookEndpoint(id: "wh-b", containerID: Fixture.container, reason: "off")
                #expect(try await store.dueWebhookDeliveries(now: Fixture.now + 1000, limit: 10).map(\.eventID) == ["e2", "e3"])

                #expect(try await store.replayWebhookDeliveries(endpointID: "wh-a", containerID: Fixture.container, since: Fixture.now, now: Fixture.now + 2000) == 3)
                let replayed = try await store.webhookDeliveries(endpointID: "wh-a", containerID: Fixture.container, before: nil, limit: 3)
                #expect(Set(replayed.map(\.eventID)) == ["e1", "e2", "e3"] && replayed.allSatisfy { $0.status == .pending }, "saw \(replayed)")
                #expect(try await store.pruneWebhookDeliveries(deliveredBefore: Fixture.now + 1000) == 0)
                #expect(try await store.pruneWebhookDeliveries(deliveredBefore: Fixture.now + 1001) == 1, "the delivered one goes")
                try await store.retryWebhookDelivery(id: listed[1].id, endpointID: "wh-a", containerID: Fixture.container, now: Fixture.now + 3000)
                #expect(try await store.webhookDeliveries(endpointID: "wh-a", containerID: Fixture.container, before: listed[1].id + 1, limit: 1).first?.status == .pending)
            },
            ConformanceCase("record changes reach the outbox when only a webhook endpoint listens, and the matcher's deliveries are stored with it") { store in
                try await store.createWebhookEndpoint(WebhookEndpoint(
                    id: "wh-1", containerID: Fixture.container, environment: .development, url: "https://hooks.example.com/a", sealedSecrets: ["s"],
                    createdAt: Fixture.now
                ))
                let zone = try await Fixture.createZone(store, "inbox")
                _ = try await Fixture.save(store, zone, Fixture.create("n1"))
                let pending = try await store.pendingRecordEvents(limit: 10)
                #expect(pending.map(\.event.record.recordName) == ["n1"], "saw \(pending.map(\.event.record.recordName))")
                var outcome = EventOutcome()
                outcome.webhookDeliveries = [PendingWebhookDelivery(
                    endpointID: "wh-1", containerID: Fixture.container, environment: .development, orderingKey: "inbox", eventID: "evt-1",
                    eventType: "record.created", body: "{}"
                )]
                _ = try await store.completeRecordEvents(through: try #require(pending.last).id, count: pending.count, outcome: outcome)
                #expect(try await store.pendingRecordEvents(limit: 10).isEmpty)
                #expect(try await store.dueWebhookDeliveries(now: Int64.max / 2, limit: 10).map(\.eventID) == ["evt-1"])
            },
            ConformanceCase("accounts made and deleted queue account events for the endpoints of either environment that want them") { store in
                try await store.createWebhookEndpoint(WebhookEndpoint(
                    id: "wh-accounts", containerID: Fixture.container, environment: .production, url: "https://hooks.example.com/a",
                    eventTypes: ["account.created", "account.deleted"], sealedSecrets: ["s"], createdAt: Fixture.now
                ))
                try await store.createWebhookEndpoint(WebhookEndpoint(
                    id: "wh-records", containerID: Fixture.container, environment: .development, url: "https://hooks.example.com/r",
                    eventTypes: ["record.created"], sealedSecrets: ["s"], createdAt: Fixture.now
                ))
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: "alice@example.com", passwordHash: "h", givenName: nil,
                    familyName: nil, createdAt: Fixture.now
                ))
                _ = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                try await store.finishAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                let queued = try await store.webhookDeliveries(endpointID: "wh-accounts", containerID: Fixture.container, before: nil, limit: 10)
                #expect(queued.map(\.eventType) == ["account.deleted", "account.created"], "saw \(queued.map(\.eventType))")
                #expect(queued.allSatisfy { $0.body.contains(Fixture.alice) && $0.environment == .production && $0.orderingKey == "accounts" })
                #expect(try await store.webhookDeliveries(endpointID: "wh-records", containerID: Fixture.container, before: nil, limit: 10).isEmpty)
            },
        ]
    }
}
