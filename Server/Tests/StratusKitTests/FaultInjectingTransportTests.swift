import Foundation
import StratusKit
import StratusKitTesting
import Testing

/// The public test harness against a live server: each injected fault reaches the app as the real one would.
@Suite struct FaultInjectingTransportTests {
    @Test("throttling and unavailability come with their retryAfter, an ended session as notAuthenticated, and lifting them lets requests through")
    func answers() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let container = server.container(transport: network)
            try await container.signUp(email: "dee@example.com", password: "correct horse battery")
            let database = container.privateCloudDatabase

            network.update { $0 = .init(throttled: 100, retryAfterSeconds: 2) }
            await #expect { try await database.save(Record(recordType: "Note")) } throws: { error in
                (error as? StratusError)?.code == .requestRateLimited && (error as? StratusError)?.retryAfter == 2
            }
            network.update { $0 = .init(unavailable: 100, retryAfterSeconds: 3) }
            await #expect { try await database.allRecordZones() } throws: { error in
                (error as? StratusError)?.code == .serviceUnavailable && (error as? StratusError)?.retryAfter == 3
            }
            network.update { $0 = .init(sessionExpired: true) }
            await #expect { try await database.allRecordZones() } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
            network.update { $0 = .init(offline: true) }
            await #expect { try await database.allRecordZones() } throws: { error in
                (error as? StratusError)?.code == .networkUnavailable
            }
            network.update { $0 = .init() }
            #expect(try await database.allRecordZones().map(\.zoneID) == [.default])
            #expect(network.injected == [.throttled: 1, .unavailable: 1, .sessionExpired: 1, .offline: 1])
        }
    }

    @Test("answers lost after the server acted: the change is on the server although the app saw a failure")
    func lostAnswers() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let container = server.container(transport: network)
            try await container.signUp(email: "eve@example.com", password: "correct horse battery")
            network.update { $0.loseAnswer = 100 }
            var note = Record(recordType: "Note", recordID: Record.ID(recordName: "lost"))
            note["title"] = "saved anyway"
            await #expect { try await container.privateCloudDatabase.save(note) } throws: { error in
                (error as? StratusError)?.code == .networkFailure
            }
            network.update { $0.loseAnswer = 0 }
            #expect(try await container.privateCloudDatabase.record(for: note.recordID)["title"] as String? == "saved anyway")
        }
    }

    @Test("a cut event stream reconnects by itself; an ended session ends it with notAuthenticated")
    func streams() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let container = server.container(transport: network)
            try await container.signUp(email: "fay@example.com", password: "correct horse battery")
            network.update { $0.cutStreamsAfterChunks = 1 }
            var seen: [String] = []
            for try await event in container.notificationEvents() {
                switch event {
                case .connected: seen.append("connected")
                case .disconnected: seen.append("disconnected")
                case .notification: seen.append("notification")
                }
                if seen.filter({ $0 == "connected" }).count == 2 { break }
            }
            #expect(Array(seen.prefix(3)) == ["connected", "disconnected", "connected"], "\(seen)")
            #expect(network.injected[.streamCut, default: 0] >= 1)

            network.update { $0 = .init(sessionExpired: true) }
            await #expect { for try await _ in container.notificationEvents() {} } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
        }
    }
}
