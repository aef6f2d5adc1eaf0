import Foundation
import StratusModel
import Testing

/// The answers besides records and zones (errors, accounts, assets, subscriptions, share links, notifications)
/// read back as written, and keep the key names CloudKit clients know.
@Suite struct WireAnswersRoundTripTests {
    let wire = WireRoundTripTests()

    /// The JSON object a value writes.
    func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("a request's error body reads back with retryAfter and redirectURL; a proxy's page is not one")
    func errorBody() throws {
        let error = ErrorResponse(serverErrorCode: "THROTTLED", reason: "slow down", uuid: "u-1", retryAfter: 3, redirectURL: "https://x.example/login")
        #expect(try wire.roundTrip(error) == error)
        #expect(try object(error)["retryAfter"] as? Int == 3)
        #expect(throws: (any Error).self) { try JSONValueDecoder().decode(ErrorResponse.self, from: Array("<html>502</html>".utf8)) }
    }

    @Test("user identities, the caller (flat or in users) and discoverability read back as written")
    func accounts() throws {
        let ann = UserIdentityEntry(
            userRecordName: "_a", nameComponents: NameComponents(givenName: "Ann", familyName: "Lee"),
            lookupInfo: UserLookupInfo(emailAddress: "ann@example.com")
        )
        #expect(try wire.roundTrip(UsersResponse(users: [ann, UserIdentityEntry(userRecordName: "_b")])).users == [ann, UserIdentityEntry(userRecordName: "_b")])
        let caller = CallerResponse(identity: ann)
        #expect(try wire.roundTrip(caller) == caller)
        let flat = try object(caller)
        #expect(flat["userRecordName"] as? String == "_a")
        #expect((flat["users"] as? [[String: Any]])?.first?["userRecordName"] as? String == "_a")
        // A server answering the identity keys only (no users array) is read too.
        let flatOnly = try JSONValueDecoder().decode(CallerResponse.self, from: Array(#"{"userRecordName":"_c"}"#.utf8))
        #expect(flatOnly.identity.userRecordName == "_c")
        #expect(try wire.roundTrip(DiscoverabilityResponse(discoverable: true, userRecordName: "_a")).discoverable)
    }

    @Test("upload tokens and an uploaded file read back as written")
    func assets() throws {
        let tokens = AssetUploadResponse(tokens: [.init(recordName: "r1", recordType: "Note", fieldName: "photo", url: "https://x.example/assets/1/upload/t")])
        #expect(try wire.roundTrip(tokens) == tokens)
        let file = AssetUploadResult(singleFile: .init(fileChecksum: "sum", receipt: "rec", size: 1234))
        #expect(try wire.roundTrip(file) == file)
        #expect((try object(file)["singleFile"] as? [String: Any])?["size"] as? Int == 1234)
    }

    @Test("subscription answers tell subscriptions, deletions and errors apart")
    func subscriptions() throws {
        var query = SubscriptionInput(subscriptionID: "s1", subscriptionType: .query, query: QueryInput(recordType: "Note"), firesOn: [.create, .update], firesOnce: false, zoneWide: true)
        query.notificationInfo = NotificationInfo()
        query.notificationInfo?.alertBody = "New note"
        query.notificationInfo?.desiredKeys = ["title"]
        let answer = SubscriptionsResponse(subscriptions: [
            .subscription(query), .deleted(subscriptionID: "s2"),
            .failure(SubscriptionErrorEntry(subscriptionID: "s3", serverErrorCode: "NOT_FOUND", reason: "no such subscription")),
        ])
        #expect(try wire.roundTrip(answer) == answer)
        let deleted = try #require((try object(answer)["subscriptions"] as? [[String: Any]])?[1])
        #expect(deleted["deleted"] as? Bool == true && deleted["subscriptionID"] as? String == "s2")
    }

    @Test("a share link's result, root record included, and its error read back as written")
    func shareLinks() throws {
        let share = WireRoundTripTests.bareShare
        let result = ShareLinkResult(
            containerIdentifier: "iCloud.example", databaseScope: .shared, environment: .development,
            zoneID: ZoneID(zoneName: "Notes", ownerRecordName: "_u"), share: share, rootRecordName: "r1", rootRecord: WireRoundTripTests.record,
            shortGUID: ShortGUIDInput(value: "g1", shouldFetchRootRecord: true), url: "https://stratus.example/share/g1",
            ownerIdentity: UserIdentityEntry(userRecordName: "_u", nameComponents: NameComponents(givenName: "Uma")),
            participantPermission: .readWrite, participantStatus: .accepted, participantType: .user
        )
        let failure = ShareLinkErrorEntry(shortGUID: ShortGUIDInput(value: "nope", shouldFetchRootRecord: false), serverErrorCode: "NOT_FOUND", reason: "no share")
        let answer = ShareLinkResponse(results: [.result(result), .failure(failure)])
        #expect(try wire.roundTrip(answer) == answer)
        let first = try #require((try object(answer)["results"] as? [[String: Any]])?.first)
        #expect(first["databaseScope"] as? String == "SHARED" && first["participantPermission"] as? String == "READ_WRITE")
    }

    @Test("notification payloads of each kind read back as written, in CloudKit's key names")
    func notifications() throws {
        let aps = NotificationPayload.APS(
            alert: .init(body: "Hi", title: "Chat", localizationKey: "NEW", localizationArgs: ["Ann"], actionLocalizationKey: "OPEN", launchImage: "l.png"),
            sound: "ping.caf", badge: 1, contentAvailable: true, category: "MESSAGE"
        )
        let query = NotificationPayload(
            aps: aps, containerIdentifier: "iCloud.example", notificationID: "n1", userRecordName: "_u", subscriptionID: "s1",
            databaseScope: .public, subject: .query(recordName: "m1", zoneID: ZoneID(ownerRecordName: NotificationPayload.publicZoneOwner), reason: .recordUpdated,
                fields: ["text": .string("Hi"), "count": .int64(3), "ratio": .double(2.5), "tags": .list(.string, [.string("a")])])
        )
        #expect(try wire.roundTrip(query) == query)
        let json = try object(query)
        let apsJSON = try #require(json["aps"] as? [String: Any])
        #expect(apsJSON["content-available"] as? Int == 1 && apsJSON["badge"] as? Int == 1)
        #expect((apsJSON["alert"] as? [String: Any])?["loc-key"] as? String == "NEW")
        let qry = try #require((json["ck"] as? [String: Any])?["qry"] as? [String: Any])
        #expect(qry["fo"] as? Int == 2 && qry["dbs"] as? Int == 1 && qry["zoid"] as? String == "_defaultOwner" && qry["rid"] as? String == "m1")

        let zone = NotificationPayload(
            aps: .init(), containerIdentifier: "iCloud.example", notificationID: "n2", userRecordName: "_u", subscriptionID: "s2",
            databaseScope: .private, subject: .zone(ZoneID(zoneName: "Notes", ownerRecordName: "_u"))
        )
        #expect(try wire.roundTrip(zone) == zone)
        var database = zone
        database.subject = .database
        database.databaseScope = .shared
        #expect(try wire.roundTrip(database) == database)

        // An alert sent as a bare string is its body.
        let bare = #"{"aps":{"alert":"Hello"},"ck":{"cid":"c","nid":"n","met":{"sid":"s","dbs":2}}}"#
        let read = try JSONValueDecoder().decode(NotificationPayload.self, from: Array(bare.utf8))
        #expect(read.aps.alert?.body == "Hello" && read.subject == .database && read.databaseScope == .private)
    }
}
