import Foundation
import StratusKit
import Testing

@Suite struct ErrorTests {
    /// A transport answering one canned response to everything.
    struct CannedTransport: Transport {
        let status: Int
        let body: String

        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(status: status, headers: [:], body: Data(body.utf8))
        }

        func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    @Test("server error bodies become CloudKit's codes, with retryAfter and redirectURL", arguments: [
        (429, "THROTTLED", StratusError.Code.requestRateLimited), (503, "TRY_AGAIN_LATER", .serviceUnavailable),
        (421, "AUTHENTICATION_REQUIRED", .notAuthenticated), (403, "ACCESS_DENIED", .permissionFailure),
        (404, "ZONE_NOT_FOUND", .zoneNotFound), (409, "CONFLICT", .serverRecordChanged), (400, "BAD_REQUEST", .invalidArguments),
        (409, "UNIQUE_FIELD_ERROR", .constraintViolation), (412, "VALIDATING_REFERENCE_ERROR", .referenceViolation),
        (413, "QUOTA_EXCEEDED", .quotaExceeded), (500, "INTERNAL_ERROR", .internalError),
    ])
    func mapping(status: Int, serverCode: String, code: StratusError.Code) async throws {
        let body = #"{"serverErrorCode":"\#(serverCode)","reason":"because","retryAfter":7,"redirectURL":"https://example.com/signin"}"#
        let container = Container(
            identifier: "c", serverURL: URL(string: "http://localhost")!, apiToken: "t", transport: CannedTransport(status: status, body: body)
        )
        do {
            _ = try await container.publicCloudDatabase.allRecordZones()
            Issue.record("no error")
        } catch let error as StratusError {
            #expect(error.code == code)
            #expect(error.serverErrorCode == serverCode)
            #expect(error.reason == "because")
            #expect(error.retryAfter == 7)
            #expect(error.redirectURL?.host == "example.com")
        }
    }

    /// A transport answering with a rotated web auth token in the CloudKit header.
    struct RotatingTransport: Transport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(status: 200, headers: ["X-Apple-CloudKit-Web-Auth-Token": "rotated-token"], body: Data(#"{"zones":[]}"#.utf8))
        }

        func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    @Test("a web auth token the server rotates is picked up and sent from then on")
    func tokenRotation() async throws {
        let container = Container(identifier: "c", serverURL: URL(string: "http://localhost")!, apiToken: "t", webAuthToken: "first", transport: RotatingTransport())
        _ = try await container.privateCloudDatabase.allRecordZones()
        #expect(container.webAuthToken == "rotated-token")
    }

    @Test("saving several throws partialFailure naming each failed record; saving one throws its own error")
    func partialFailure() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").publicCloudDatabase
            try await database.save(Record(recordType: "Note", recordID: Record.ID(recordName: "taken")))
            do {
                try await database.save([Record(recordType: "Note", recordID: Record.ID(recordName: "taken")), Record(recordType: "Note")])
                Issue.record("no error")
            } catch let error as StratusError {
                #expect(error.code == .partialFailure)
                #expect(error.partialErrorsByItemID.keys.map(\.recordName) == ["taken"])
                #expect(error.partialErrorsByItemID.values.first?.code == .serverRecordChanged)
            }
            // One record, saved alone or in an array, throws the record's own error.
            for save in [{ _ = try await database.save(Record(recordType: "Note", recordID: Record.ID(recordName: "taken"))) },
                         { _ = try await database.save([Record(recordType: "Note", recordID: Record.ID(recordName: "taken"))]) }] {
                await #expect { try await save() } throws: { error in (error as? StratusError)?.code == .serverRecordChanged }
            }
        }
    }
}
