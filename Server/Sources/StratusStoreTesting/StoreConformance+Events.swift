import StratusModel
import StratusStore
import Synchronization
import Testing

/// Store events, the outbox of record changes and leases: what lets several processes share one store.
extension StoreConformance {
    static var eventCases: [ConformanceCase] {
        [
            ConformanceCase("each change caches depend on is delivered as an event, in commit order, by catchUpEvents") { store in
                let recorder = EventRecorder(store)
                try await store.createContainer(ContainerInfo(id: Fixture.container, apiToken: "t1", createdAt: 1))
                try await store.createServerKey(ServerKey(id: "k1", containerID: Fixture.container, publicKeyPEM: "PEM", role: nil, createdAt: 1))
                try await store.createSession(Session(
                    id: "s1", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now, expiresAt: Fixture.now + 1000
                ))
                let subscription = StoredSubscription(id: "sub", database: Fixture.privateDB(), owner: Fixture.alice, body: "{}", createdAt: 1)
                try await store.revokeServerKey(id: "k1", containerID: Fixture.container)
                try await store.setRoles(["Editor"], containerID: Fixture.container, environment: .development, userRecordName: Fixture.bob)
                try await store.deleteSession(id: "s1")
                try await store.setAPIToken("t2", containerID: Fixture.container)
                try await store.saveSubscription(subscription, mustExist: false)
                try await store.deleteSubscription(id: "sub", owner: Fixture.alice, in: Fixture.privateDB())
                try await store.changeSchemas(containerID: Fixture.container) { development, _ in
                    development.recordTypes["Note"] = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (text STRING);").recordTypes["Note"]
                }
                try await store.catchUpEvents()
                #expect(recorder.events == [
                    .serverKeyRevoked(keyID: "k1"),
                    .rolesChanged(containerID: Fixture.container, environment: .development, userRecordName: Fixture.bob),
                    .sessionEnded(sessionID: "s1"),
                    .containerChanged(containerID: Fixture.container),
                    .subscriptionSaved(database: Fixture.privateDB(), owner: Fixture.alice, id: "sub"),
                    .subscriptionDeleted(database: Fixture.privateDB(), owner: Fixture.alice, id: "sub"),
                    .schemaChanged(containerID: Fixture.container),
                ])
                #expect(!recorder.missed)
            },
            ConformanceCase("record changes wait in the outbox where someone subscribed, and are completed exactly once") { store in
                let recorder = EventRecorder(store)
                let zone = try await Fixture.createZone(store, "Chat")
                try await Fixture.modify(store, zone, [Fixture.create("before")])
                #expect(try await store.pendingRecordEvents(limit: 10).isEmpty)

                let subscription = StoredSubscription(id: "once", database: Fixture.privateDB(), owner: Fixture.alice, body: "{}", createdAt: 1)
                try await store.saveSubscription(subscription, mustExist: false)
                #expect(try await store.subscription(id: "once", owner: Fixture.alice, in: Fixture.privateDB()) == subscription)
                #expect(try await store.subscription(id: "once", owner: Fixture.bob, in: Fixture.privateDB()) == nil)
                try await Fixture.modify(store, zone, [Fixture.create("m1", ["text": Fixture.field(.string("hi"))])])
                try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "before")])
                let pending = try await store.pendingRecordEvents(limit: 10)
                #expect(pending.map(\.event.kind) == [.created, .deleted])
                #expect(pending.map(\.event.record.recordName) == ["m1", "before"])
                #expect(pending.first?.event.fields["text"] == .string("hi"))
                #expect(pending.first?.event.zone == zone)
                #expect(pending.map(\.id) == pending.map(\.id).sorted())

                var outcome = EventOutcome()
                outcome.notifications = [PendingNotification(
                    containerID: Fixture.container, environment: .development, recipient: Fixture.alice, subscriptionID: "once", payload: "{}"
                )]
                outcome.firedOnce = [(Fixture.privateDB(), Fixture.alice, "once")]
                let stored = try await store.completeRecordEvents(through: pending.last!.id, count: pending.count, outcome: outcome)
                #expect(stored?.count == 1)
                #expect(try await store.pendingRecordEvents(limit: 10).isEmpty)
                #expect(try await store.subscription(id: "once", owner: Fixture.alice, in: Fixture.privateDB()) == nil)
                // A second matcher that read the same changes stores nothing.
                #expect(try await store.completeRecordEvents(through: pending.last!.id, count: pending.count, outcome: outcome) == nil)
                let notifications = try await store.notifications(for: Fixture.alice, containerID: Fixture.container, environment: .development, after: 0, limit: 10)
                #expect(notifications.map(\.id) == stored?.map(\.id))

                try await store.catchUpEvents()
                #expect(recorder.events.contains(.recordEventsPending))
                #expect(recorder.events.contains(.subscriptionDeleted(database: Fixture.privateDB(), owner: Fixture.alice, id: "once")))
                #expect(recorder.events.contains(.notificationsAdded(
                    containerID: Fixture.container, environment: .development, recipients: [Fixture.alice], latestID: notifications.last?.id ?? -1
                )))
            },
            ConformanceCase("a courier queue hands out its user's notifications in order, each once, also to takers at the same time") { store in
                let zone = try await Fixture.createZone(store, "Chat")
                let subscription = StoredSubscription(id: "all", database: Fixture.privateDB(), owner: Fixture.alice, body: "{}", createdAt: 1)
                try await store.saveSubscription(subscription, mustExist: false)
                try await store.savePushToken(PushToken(
                    token: "queue", containerID: Fixture.container, environment: .development, user: Fixture.alice,
                    apnsEnvironment: "development", expiresAt: Fixture.now + 60_000, cursor: 0
                ))
                try await Fixture.modify(store, zone, (1...6).map { Fixture.create("m\($0)") })
                let pending = try await store.pendingRecordEvents(limit: 10)
                var outcome = EventOutcome()
                outcome.notifications = (1...6).map { index in
                    PendingNotification(containerID: Fixture.container, environment: .development, recipient: Fixture.alice, subscriptionID: "all", payload: "{\"n\":\(index)}")
                }
                let stored = try #require(try await store.completeRecordEvents(through: pending.last!.id, count: pending.count, outcome: outcome))
                #expect(try await store.takeNotification(forToken: "queue", now: Fixture.now)?.id == stored[0].id)
                let taken = try await withThrowingTaskGroup(of: StoredNotification?.self) { group in
                    for _ in 0..<8 { group.addTask { try await store.takeNotification(forToken: "queue", now: Fixture.now) } }
                    return try await group.reduce(into: [StoredNotification]()) { if let taken = $1 { $0.append(taken) } }
                }
                #expect(taken.map(\.id).sorted() == stored.dropFirst().map(\.id))
                #expect(try await store.takeNotification(forToken: "queue", now: Fixture.now) == nil)
                await #expect(throws: StorageError.self) { try await store.takeNotification(forToken: "queue", now: Fixture.now + 60_000) }
                await #expect(throws: StorageError.self) { try await store.takeNotification(forToken: "unknown", now: Fixture.now) }
            },
            ConformanceCase("a lease is held by one holder at a time, until it expires or is given up") { store in
                #expect(try await store.acquireLease("job", holder: "a", now: 1_000, duration: 100))
                #expect(try await !store.acquireLease("job", holder: "b", now: 1_050, duration: 100))
                #expect(try await store.acquireLease("job", holder: "a", now: 1_090, duration: 100))
                #expect(try await !store.acquireLease("job", holder: "b", now: 1_150, duration: 100))
                #expect(try await store.acquireLease("job", holder: "b", now: 1_190, duration: 100))
                #expect(try await store.acquireLease("other", holder: "a", now: 1_190, duration: 100))
                try await store.releaseLease("job", holder: "a")
                #expect(try await !store.acquireLease("job", holder: "a", now: 1_200, duration: 100))
                try await store.releaseLease("job", holder: "b")
                #expect(try await store.acquireLease("job", holder: "a", now: 1_200, duration: 100))
            },
        ]
    }
}

/// Keeps every event a store delivers.
public final class EventRecorder: Sendable {
    private let state = Mutex<(events: [StoreEvent], missed: Bool)>(([], false))

    public init(_ store: any EventStore) {
        store.observeEvents { [weak self] delivery in
            self?.state.withLock { state in
                switch delivery {
                case .committed(let events): state.events += events
                case .missed: state.missed = true
                }
            }
        }
    }

    public var events: [StoreEvent] { state.withLock { $0.events } }
    /// Whether the store said some events were missed.
    public var missed: Bool { state.withLock { $0.missed } }
}
