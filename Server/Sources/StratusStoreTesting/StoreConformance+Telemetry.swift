import StratusModel
import StratusStore
import Testing

/// Per-minute telemetry from several nodes, active users, storage over time and the request log.
extension StoreConformance {
    static var telemetryCases: [ConformanceCase] {
        [
            ConformanceCase("each node's minute replaces what it wrote before; every node's minutes are read back, merged by the reader") { store in
                var latency = LatencyHistogram()
                latency.add(microseconds: 900)
                latency.add(microseconds: 40_000)
                var first = TelemetryMinute(
                    containerID: Fixture.container, environment: .development, minute: 100, node: "a", requests: 2, errorCodes: ["BAD_REQUEST": 1],
                    latency: latency, notifications: 3
                )
                try await store.saveTelemetryMinutes([
                    first, TelemetryMinute(containerID: Fixture.container, environment: .development, minute: 100, node: "b", requests: 5),
                    TelemetryMinute(containerID: Fixture.container, environment: .production, minute: 100, node: "a", requests: 7),
                    TelemetryMinute(containerID: Fixture.container, environment: .development, minute: 102, node: "a", requests: 1),
                ])
                first.requests = 4
                first.errorCodes = ["BAD_REQUEST": 1, "CONFLICT": 2]
                try await store.saveTelemetryMinutes([first])
                let read = try await store.telemetryMinutes(containerID: Fixture.container, environment: .development, from: 100, to: 102)
                #expect(read.map(\.node) == ["a", "b"] && read.map(\.requests) == [4, 5], "\(read)")
                #expect(read.first == first, "the histogram, error codes and notifications come back as written: \(read)")
                #expect(read.first?.latency.quantile(0.5) ?? 0 >= 900 && read.first?.latency.quantile(1) ?? 0 >= 40_000)
                #expect(try await store.telemetryMinutes(containerID: "other", environment: .development, from: 0, to: 1000).isEmpty)
            },
            ConformanceCase("active users are counted once a day; storage history comes from each measurement") { store in
                try await store.noteActiveUsers(["u1", "u2"], containerID: Fixture.container, environment: .development, day: 19_000)
                try await store.noteActiveUsers(["u2", "u3"], containerID: Fixture.container, environment: .development, day: 19_000)
                try await store.noteActiveUsers(["u1"], containerID: Fixture.container, environment: .development, day: 19_001)
                #expect(try await store.activeUsers(containerID: Fixture.container, environment: .development, from: 19_000, to: 19_002) == [19_000: 3, 19_001: 1])
                _ = try await Fixture.save(store, Fixture.privateDB().zone(ZoneID.defaultZoneName), Fixture.create("n1", ["t": Fixture.field(.string("x"))]))
                _ = try await Fixture.save(
                    store, Fixture.publicDB().zone(ZoneID.defaultZoneName), Fixture.create("p1", ["t": Fixture.field(.string("y"))])
                )
                try await store.measureStorage(now: Fixture.now)
                try await store.measureStorage(now: Fixture.now + 60_000)
                let history = try await store.storageHistory(containerID: Fixture.container, environment: .development, from: Fixture.now, to: Fixture.now + 120_000)
                #expect(history.map(\.measuredAt) == [Fixture.now, Fixture.now + 60_000] && history.allSatisfy { $0.users == 1 && $0.publicBytes > 0 && $0.privateBytes > 0 }, "\(history)")
                try await store.sweepTelemetry(figuresBefore: Fixture.now + 1, logBefore: 0)
                #expect(try await store.storageHistory(containerID: Fixture.container, environment: .development, from: 0, to: .max).count == 1)
                #expect(try await store.activeUsers(containerID: Fixture.container, environment: .development, from: 0, to: .max).isEmpty)
            },
            ConformanceCase("the request log is searched by environment, user, record type, error code and time, newest first, a page at a time") { store in
                func entry(_ time: Int64, user: String?, types: [String], code: String?, environment: Environment = .development) -> RequestLogEntry {
                    RequestLogEntry(
                        containerID: Fixture.container, environment: environment, time: time, node: "a", method: "POST", operation: "public/records/modify",
                        status: code == nil ? 200 : 400, errorCode: code, userRecordName: user, recordTypes: types, microseconds: 1500, address: "192.0.2.1"
                    )
                }
                try await store.appendRequestLog([
                    entry(1000, user: "ann", types: ["Note"], code: nil), entry(2000, user: "ann", types: ["Note_Draft", "Tag"], code: "BAD_REQUEST"),
                    entry(3000, user: "bob", types: ["Tag"], code: "CONFLICT"), entry(4000, user: nil, types: [], code: nil, environment: .production),
                ])
                func times(_ query: RequestLogQuery) async throws -> [Int64] {
                    try await store.requestLog(containerID: Fixture.container, matching: query).map(\.time)
                }
                #expect(try await times(RequestLogQuery()) == [4000, 3000, 2000, 1000])
                #expect(try await times(RequestLogQuery(environment: .development, userRecordName: "ann")) == [2000, 1000])
                #expect(try await times(RequestLogQuery(recordType: "Note")) == [1000], "Note_Draft is another type, and _ is no wildcard")
                #expect(try await times(RequestLogQuery(recordType: "Tag")) == [3000, 2000])
                #expect(try await times(RequestLogQuery(errorCode: "*")) == [3000, 2000])
                #expect(try await times(RequestLogQuery(errorCode: "CONFLICT")) == [3000])
                #expect(try await times(RequestLogQuery(from: 2000, to: 4000)) == [3000, 2000])
                let firstPage = try await store.requestLog(containerID: Fixture.container, matching: RequestLogQuery(limit: 2))
                #expect(try await times(RequestLogQuery(beforeID: firstPage.last?.id, limit: 2)) == [2000, 1000])
                let logged = try #require(firstPage.first)
                #expect(logged.address == "192.0.2.1" && logged.microseconds == 1500 && logged.operation == "public/records/modify" && logged.userRecordName == nil)
                #expect(try await store.requestLog(containerID: Fixture.container, matching: RequestLogQuery(recordType: "Tag")).first?.recordTypes == ["Tag"])
                try await store.sweepTelemetry(figuresBefore: 0, logBefore: 2500)
                #expect(try await times(RequestLogQuery()) == [4000, 3000])
            },
        ]
    }
}
