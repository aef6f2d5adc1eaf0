import StratusModel
import StratusStore
import Testing

/// Store events as stored, and which backend caches a delivery makes stale.
@Suite struct StoreEventTests {
    @Test("an event reads back as written; text a newer version wrote is skipped, not misread")
    func encoding() {
        let events: [StoreEvent] = [
            .schemaChanged(containerID: "iCloud.app"),
            .rolesChanged(containerID: "iCloud.app", environment: .production, userRecordName: "_u1"),
            .notificationsAdded(containerID: "iCloud.app", environment: .development, recipients: ["_u1", "_u2"], latestID: 42),
        ]
        for event in events { #expect(StoreEvent(encoded: event.encoded) == event) }
        #expect(StoreEvent(encoded: #"{"zoneRenamed":{"containerID":"iCloud.app"}}"#) == nil)
    }

    @Test("schemas are read again after a schema change or missed events; index builds after a build change or missed events")
    func invalidation() {
        let schema = StoreEventDelivery.committed([.recordEventsPending, .schemaChanged(containerID: "iCloud.app")])
        let builds = StoreEventDelivery.committed([.indexBuildsChanged(containerID: "iCloud.app", environment: .development)])
        let unrelated = StoreEventDelivery.committed([.sessionEnded(sessionID: "s"), .recordEventsPending])
        #expect(schema.invalidatesSchemas && !schema.invalidatesIndexBuilds)
        #expect(builds.invalidatesIndexBuilds && !builds.invalidatesSchemas)
        #expect(!unrelated.invalidatesSchemas && !unrelated.invalidatesIndexBuilds)
        #expect(StoreEventDelivery.missed.invalidatesSchemas && StoreEventDelivery.missed.invalidatesIndexBuilds)
    }
}
