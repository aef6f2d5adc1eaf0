import Foundation
import StratusModel
import Testing

@Suite struct SharingAPITests {
    @Test("A shares private contact details with B by record name through a public profile's link; C is refused; removing B ends B's access")
    func privateInfoThroughPublicProfile() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            let carol = try await client.signUp("carol@example.com", token: token)

            // A keeps PrivateInfo in a private zone and shares it with B alone.
            try await alice.createZone("Contact")
            _ = try await alice.save([
                #"{"recordName":"info","recordType":"PrivateInfo","fields":{"phoneNumber":{"value":"+1 555 0100"},"email":{"value":"alice@example.com"}}}"#,
            ], zone: "Contact")
            let share = try await alice.share("info", zone: "Contact", participants: [participant(userRecordName: bob.userRecordName)])
            #expect(share["publicPermission"] == .string("NONE"))
            #expect(share["participants"]?.arrayValue?.count == 2)
            guard let url = share["url"]?.stringValue, let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
            #expect(url.hasSuffix("/share/\(guid)"))
            let root = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Contact"},"records":[{"recordName":"info"}]}"#)
            #expect(root.records.first?["share"]?.objectValue?["recordName"] == .string("share-1"))

            // ...and publishes the link in a public MyUser record.
            _ = try await alice.create("alice", type: "MyUser", fields: #"{"firstName":{"value":"Alice"},"lastName":{"value":"Liddell"},"privateShareUrl":{"value":"\#(url)"}}"#)

            // B reads the public record, resolves the link, accepts, and reads the phone number and email.
            let profile = try await bob.post("public", "records/lookup", #"{"records":[{"recordName":"alice"}]}"#)
            guard let published = profile.records.first?["fields"]?.objectValue?["privateShareUrl"]?.objectValue?["value"]?.stringValue,
                let link = published.split(separator: "/").last.map(String.init)
            else { throw TestFailure("\(profile.json)") }
            let resolved = try await bob.shareResults("resolve", [link], fetchRoot: true)
            #expect(resolved.first?["participantStatus"] == .string("INVITED"))
            #expect(resolved.first?["participantPermission"] == .string("READ_ONLY"))
            #expect(resolved.first?["databaseScope"] == .string("SHARED"))
            #expect(resolved.first?["ownerIdentity"]?.objectValue?["userRecordName"] == .string(alice.userRecordName))
            #expect(resolved.first?["rootRecord"]?.objectValue?["fields"]?.objectValue?["phoneNumber"] != nil)
            let accepted = try await bob.shareResults("accept", [link])
            #expect(accepted.first?["participantStatus"] == .string("ACCEPTED"))
            let zones = try await bob.get("shared", "zones/list")
            #expect(zones["zones"]?.arrayValue?.first?.objectValue?["zoneID"] == .object(["zoneName": .string("Contact"), "ownerRecordName": .string(alice.userRecordName)]))
            let read = try await bob.sharedLookup(["info"], zoneID: alice.zoneID("Contact"))
            #expect(read.records.first?["fields"]?.objectValue?["phoneNumber"]?.objectValue?["value"] == .string("+1 555 0100"))
            #expect(read.records.first?["fields"]?.objectValue?["email"]?.objectValue?["value"] == .string("alice@example.com"))

            // C, who was not added, is refused everywhere.
            #expect(try await carol.shareResults("resolve", [link]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))
            #expect(try await carol.shareResults("accept", [link]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))
            #expect(try await carol.sharedLookup(["info"], zoneID: alice.zoneID("Contact")).errorCode == "ZONE_NOT_FOUND")
            #expect(try await carol.get("shared", "zones/list")["zones"] == .array([]))
            #expect(try await alice.anonymous.shareResults("resolve", [link]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))

            // A removes B by saving the share without B; B is refused from then on.
            let before = try await bob.post("shared", "changes/database", "{}")
            guard let tag = share["recordChangeTag"]?.stringValue, let syncToken = before["syncToken"]?.stringValue else { throw TestFailure("\(before.json)") }
            let removed = try await alice.save([
                #"{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[]}"#,
            ], zone: "Contact", operation: "update")
            #expect(removed.records.first?["participants"]?.arrayValue?.count == 1)
            #expect(try await bob.sharedLookup(["info"], zoneID: alice.zoneID("Contact")).errorCode == "ZONE_NOT_FOUND")
            #expect(try await bob.shareResults("resolve", [link]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))
            #expect(try await bob.get("shared", "zones/list")["zones"] == .array([]))
            let after = try await bob.post("shared", "changes/database", #"{"syncToken":"\#(syncToken)"}"#)
            #expect(after["zones"]?.arrayValue?.first?.objectValue?["deleted"] == .bool(true))
        }
    }

    @Test("READ_ONLY participants only read; READ_WRITE participants write beneath the shared root and nowhere else")
    func permissions() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let reader = try await client.signUp("reader@example.com", token: token)
            let writer = try await client.signUp("writer@example.com", token: token)
            try await alice.createZone("Lists")
            let saved = try await alice.save([
                #"{"recordName":"groceries","recordType":"List","fields":{"title":{"value":"Groceries"}}}"#,
                #"{"recordName":"milk","recordType":"Item","parent":{"recordName":"groceries"},"fields":{"title":{"value":"Milk"}}}"#,
                #"{"recordName":"diary","recordType":"List","fields":{"title":{"value":"Secret"}}}"#,
            ], zone: "Lists")
            #expect(saved.records.dropFirst().first?["parent"] == .object(["recordName": .string("groceries")]))
            let share = try await alice.share("groceries", zone: "Lists", participants: [
                participant(userRecordName: reader.userRecordName), participant(email: "writer@example.com", permission: "READ_WRITE"),
            ])
            guard let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
            for user in [reader, writer] { _ = try await user.shareResults("accept", [guid]) }
            let zone = alice.zoneID("Lists")

            // Reading: the tree only.
            let read = try await reader.sharedLookup(["groceries", "milk", "diary"], zoneID: zone)
            #expect(read.recordErrors == [nil, nil, "NOT_FOUND"])
            let query = try await reader.post("shared", "records/query", #"{"zoneID":\#(zone),"query":{"recordType":"List"}}"#)
            #expect(query.records.map { $0["recordName"] } == [.string("groceries")])
            let changes = try await reader.post("shared", "records/changes", #"{"zoneID":\#(zone)}"#)
            #expect(Set(changes.records.compactMap { $0["recordName"]?.stringValue }) == ["groceries", "milk", "share-1"])

            // A reader cannot write at all.
            let readerWrite = try await reader.sharedSave([#"{"recordName":"eggs","recordType":"Item","parent":{"recordName":"groceries"},"fields":{}}"#], zoneID: zone)
            #expect(readerWrite.recordErrors == ["ACCESS_DENIED"])

            // A writer adds beneath the root and edits in the tree...
            let added = try await writer.sharedSave([#"{"recordName":"eggs","recordType":"Item","parent":{"recordName":"milk"},"fields":{"title":{"value":"Eggs"}}}"#], zoneID: zone)
            #expect(added.recordErrors == [nil])
            let edited = try await writer.sharedSave([#"{"recordName":"groceries","recordType":"List","fields":{"title":{"value":"Groceries!"}}}"#], zoneID: zone, operation: "forceUpdate")
            #expect(edited.recordErrors == [nil])
            // ...but not outside it, not without a parent, not the share, and cannot delete the root.
            let outside = try await writer.sharedSave([
                #"{"recordName":"diary","recordType":"List","fields":{"title":{"value":"Read you"}}}"#,
            ], zoneID: zone, operation: "forceUpdate")
            #expect(outside.recordErrors == ["ACCESS_DENIED"])
            let orphan = try await writer.sharedSave([#"{"recordName":"loose","recordType":"Item","fields":{}}"#], zoneID: zone)
            #expect(orphan.recordErrors == ["ACCESS_DENIED"])
            let escape = try await writer.sharedSave([#"{"recordName":"diary-note","recordType":"Item","parent":{"recordName":"diary"},"fields":{}}"#], zoneID: zone)
            #expect(escape.recordErrors == ["ACCESS_DENIED"])
            let moveOut = try await writer.sharedSave([#"{"recordName":"milk","recordType":"Item","parent":null}"#], zoneID: zone, operation: "forceUpdate")
            #expect(moveOut.recordErrors == ["ACCESS_DENIED"])
            let shareEdit = try await writer.sharedSave([#"{"recordName":"share-1","recordType":"cloudkit.share","publicPermission":"READ_WRITE"}"#], zoneID: zone, operation: "forceUpdate")
            #expect(shareEdit.recordErrors == ["ACCESS_DENIED"])
            let rootDelete = try await writer.sharedSave([#"{"recordName":"groceries"}"#], zoneID: zone, operation: "forceDelete")
            #expect(rootDelete.recordErrors == ["ACCESS_DENIED"])
            #expect(try await writer.sharedSave([#"{"recordName":"eggs"}"#], zoneID: zone, operation: "forceDelete").recordErrors == [nil])

            // The owner sees the participant's writes, made by the participant.
            let own = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"groceries"}]}"#)
            #expect(own.records.first?["modified"]?.objectValue?["userRecordName"] == .string(writer.userRecordName))
            // Changing a permission takes effect at once.
            guard let tag = share["recordChangeTag"]?.stringValue, let participants = share["participants"]?.arrayValue else { throw TestFailure("\(share)") }
            let ids = participants.compactMap { $0.objectValue?["participantId"]?.stringValue }
            _ = try await alice.save([
                #"{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[{"participantId":"\#(ids[1])","permission":"READ_ONLY"},{"participantId":"\#(ids[2])","permission":"READ_ONLY"}]}"#,
            ], zone: "Lists", operation: "update")
            let demoted = try await writer.sharedSave([#"{"recordName":"groceries","recordType":"List","fields":{"title":{"value":"Again"}}}"#], zoneID: zone, operation: "forceUpdate")
            #expect(demoted.recordErrors == ["ACCESS_DENIED"])
        }
    }

    @Test("a link with a public permission lets anyone resolve and join, until the owner sets it back to NONE")
    func publicPermission() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let dave = try await client.signUp("dave@example.com", token: token)
            try await alice.createZone("Board")
            _ = try await alice.save([#"{"recordName":"board","recordType":"Board","fields":{"title":{"value":"Ideas"}}}"#], zone: "Board")
            let share = try await alice.share("board", zone: "Board", publicPermission: "READ_ONLY")
            guard let guid = share["shortGUID"]?.stringValue, let tag = share["recordChangeTag"]?.stringValue else { throw TestFailure("\(share)") }

            let anonymous = try await alice.anonymous.shareResults("resolve", [guid], fetchRoot: true)
            #expect(anonymous.first?["participantType"] == .string("PUBLIC_USER"))
            #expect(anonymous.first?["rootRecord"]?.objectValue?["recordName"] == .string("board"))
            #expect(try await alice.anonymous.post("public", "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#).errorCode == "AUTHENTICATION_REQUIRED")
            let joined = try await dave.shareResults("accept", [guid])
            #expect(joined.first?["participantType"] == .string("PUBLIC_USER"))
            #expect(joined.first?["participantStatus"] == .string("ACCEPTED"))
            #expect(try await dave.sharedLookup(["board"], zoneID: alice.zoneID("Board")).recordErrors == [nil])

            _ = try await alice.save([
                #"{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","publicPermission":"NONE"}"#,
            ], zone: "Board", operation: "update")
            #expect(try await dave.sharedLookup(["board"], zoneID: alice.zoneID("Board")).errorCode == "ZONE_NOT_FOUND")
            #expect(try await alice.anonymous.shareResults("resolve", [guid]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))
            #expect(try await dave.shareResults("resolve", ["no-such-link"]).first?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("a zone-wide share covers every record of the zone; participants invited by phone join and can leave")
    func zoneWideShareAndLeaving() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let signedUp = try await client.send(
                .post, "/auth/1/\(TestServer.container)/development/signup?ckAPIToken=\(token)",
                body: #"{"emailAddress":"erin@example.com","password":"correct horse","phoneNumber":"+1 555 0199"}"#
            )
            guard let erinToken = signedUp["ckWebAuthToken"]?.stringValue, let erinName = signedUp["userRecordName"]?.stringValue else {
                throw TestFailure("\(signedUp.json)")
            }
            let erin = UserSession(client: client, apiToken: token, webAuthToken: erinToken, userRecordName: erinName)
            try await alice.createZone("Family")
            _ = try await alice.save([#"{"recordName":"a","recordType":"Note","fields":{}}"#], zone: "Family")
            let share = try await alice.share(nil, zone: "Family", participants: [participant(phone: "+1 (555) 0199", permission: "READ_WRITE")])
            #expect(share["recordName"] == .string("cloudkit.zoneshare"))
            guard let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
            let accepted = try await erin.shareResults("accept", [guid])
            #expect(accepted.first?["participantStatus"] == .string("ACCEPTED"))
            #expect(accepted.first?["share"]?.objectValue?["currentUserParticipant"]?.objectValue?["userIdentity"]?.objectValue?["userRecordName"] == .string(erinName))
            let zone = alice.zoneID("Family")

            // Everything in the zone, including records added later and records the participant adds without a parent.
            _ = try await alice.save([#"{"recordName":"b","recordType":"Note","fields":{}}"#], zone: "Family")
            #expect(try await erin.sharedLookup(["a", "b"], zoneID: zone).recordErrors == [nil, nil])
            #expect(try await erin.sharedSave([#"{"recordName":"c","recordType":"Note","fields":{}}"#], zoneID: zone).recordErrors == [nil])
            let changes = try await erin.post("shared", "changes/zone", #"{"zones":[{"zoneID":\#(zone)}]}"#)
            #expect(changes["zones"]?.arrayValue?.first?.objectValue?["records"]?.arrayValue?.count == 4)

            // Leaving through zones/modify in the shared database ends access; accepting again brings it back.
            let left = try await erin.post("shared", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":\#(zone)}}]}"#)
            #expect(left["zones"]?.arrayValue?.first?.objectValue?["deleted"] == .bool(true))
            #expect(try await erin.sharedLookup(["a"], zoneID: zone).errorCode == "ZONE_NOT_FOUND")
            #expect(try await erin.shareResults("accept", [guid]).first?["serverErrorCode"] == .string("ACCESS_DENIED"))
        }
    }

    @Test("leaving by deleting the share record, and the owner deleting the share, end access at once")
    func deletingShares() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            try await alice.createZone("Trip")
            _ = try await alice.save([#"{"recordName":"trip","recordType":"Trip","fields":{}}"#], zone: "Trip")
            let share = try await alice.share("trip", zone: "Trip", participants: [participant(userRecordName: bob.userRecordName)])
            guard let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
            let zone = alice.zoneID("Trip")

            _ = try await bob.shareResults("accept", [guid])
            let leave = try await bob.sharedSave([#"{"recordName":"share-1"}"#], zoneID: zone, operation: "forceDelete")
            #expect(leave.records.first?["deleted"] == .bool(true))
            #expect(try await bob.sharedLookup(["trip"], zoneID: zone).errorCode == "ZONE_NOT_FOUND")
            let stillShared = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Trip"},"records":[{"recordName":"share-1"}]}"#)
            #expect(stillShared.records.first?["participants"]?.arrayValue?.count == 1)

            // Added again, B accepts; then the owner deletes the share. The root keeps its link for a new share.
            _ = try await alice.save([
                #"{"recordName":"share-1","recordType":"cloudkit.share","participants":[\#(participant(userRecordName: bob.userRecordName))]}"#,
            ], zone: "Trip", operation: "forceUpdate")
            _ = try await bob.shareResults("accept", [guid])
            #expect(try await bob.sharedLookup(["trip"], zoneID: zone).recordErrors == [nil])
            let deleted = try await alice.save([#"{"recordName":"share-1"}"#], zone: "Trip", operation: "forceDelete")
            #expect(deleted.records.first?["deleted"] == .bool(true))
            #expect(try await bob.sharedLookup(["trip"], zoneID: zone).errorCode == "ZONE_NOT_FOUND")
            #expect(try await bob.shareResults("resolve", [guid]).first?["serverErrorCode"] == .string("NOT_FOUND"))
            let root = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Trip"},"records":[{"recordName":"trip"}]}"#)
            #expect(root.records.first?["share"] == nil)
            let again = try await alice.share("trip", zone: "Trip", name: "share-2")
            #expect(again["shortGUID"]?.stringValue == guid)

            // Deleting the root deletes its share, and its link stops working.
            _ = try await alice.save([#"{"recordName":"trip"}"#], zone: "Trip", operation: "forceDelete")
            let gone = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Trip"},"records":[{"recordName":"share-2"}]}"#)
            #expect(gone.recordErrors == ["NOT_FOUND"])
            #expect(try await client.send(.get, "/share/\(guid)").status == 404)
        }
    }

    @Test("share records and parents refuse what cannot be shared, with per-record errors")
    func refusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            try await alice.createZone("Z")
            _ = try await alice.save([
                #"{"recordName":"root","recordType":"Folder","fields":{}}"#,
                #"{"recordName":"child","recordType":"Folder","parent":{"recordName":"root"},"fields":{}}"#,
                #"{"recordName":"other","recordType":"Folder","fields":{}}"#,
            ], zone: "Z")
            _ = try await alice.share("root", zone: "Z")
            func shareErrors(_ record: String, zone: String = "Z") async throws -> [String?] {
                try await alice.save([record], zone: zone).recordErrors
            }
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","fields":{}}"#) == ["BAD_REQUEST"])
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"nope"}}"#) == ["BAD_REQUEST"])
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"root"}}"#) == ["EXISTS"])
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"child"}}"#) == ["EXISTS"])
            #expect(try await shareErrors(#"{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share"}"#) == ["EXISTS"])
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"other"},"participants":[\#(participant(userRecordName: "_nobody"))]}"#) == ["BAD_REQUEST"])
            #expect(try await shareErrors(#"{"recordName":"s2","recordType":"cloudkit.share","forRecord":{"recordName":"root"},"fields":{"color":{"value":"red"}}}"#) == ["BAD_REQUEST"])
            #expect(try await shareErrors(#"{"recordName":"loop","recordType":"Folder","parent":{"recordName":"loop"},"fields":{}}"#) == ["BAD_REQUEST"])
            #expect(try await alice.save([#"{"recordName":"root","recordType":"Folder","parent":{"recordName":"child"}}"#], zone: "Z", operation: "forceUpdate").recordErrors == ["BAD_REQUEST"])
            #expect(try await shareErrors(#"{"recordName":"orphan","recordType":"Folder","parent":{"recordName":"missing"},"fields":{}}"#) == ["BAD_REQUEST"])

            // Whole-request refusals: malformed permissions, share keys on ordinary records.
            let badPermission = try await alice.save([#"{"recordName":"s3","recordType":"cloudkit.share","forRecord":{"recordName":"child"},"publicPermission":"EVERYONE"}"#], zone: "Z")
            #expect(badPermission.errorCode == "BAD_REQUEST")
            let badParticipant = try await alice.save([#"{"recordName":"s3","recordType":"cloudkit.share","forRecord":{"recordName":"child"},"participants":[{"permission":"READ_ONLY"}]}"#], zone: "Z")
            #expect(badParticipant.errorCode == "BAD_REQUEST")
            let misplaced = try await alice.save([#"{"recordName":"x","recordType":"Folder","publicPermission":"READ_ONLY","fields":{}}"#], zone: "Z")
            #expect(misplaced.errorCode == "BAD_REQUEST")

            // Shares live in custom zones of private databases.
            let inDefault = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"r"}}}]}"#)
            #expect(inDefault.recordErrors == ["BAD_REQUEST"])
            let inPublic = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"s","recordType":"cloudkit.share","forRecord":{"recordName":"r"}}}]}"#)
            #expect(inPublic.recordErrors == ["BAD_REQUEST"])

            // The shared database holds only zones shared with the caller.
            #expect(try await alice.post("shared", "records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[]}"#).errorCode == "ZONE_NOT_FOUND")
            #expect(try await alice.sharedLookup([], zoneID: alice.zoneID("Z")).errorCode == "ZONE_NOT_FOUND")
            #expect(try await alice.post("shared", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"New"}}}]}"#).errorCode == "BAD_REQUEST")
        }
    }

    @Test("share links answer their container on GET /share/<shortGUID>; root and share are saved in one atomic batch")
    func linksAndBatches() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            try await alice.createZone("Docs")
            let batch = try await alice.save([
                #"{"recordName":"doc","recordType":"Doc","fields":{"title":{"value":"Plan"}}}"#,
                #"{"recordName":"doc-share","recordType":"cloudkit.share","forRecord":{"recordName":"doc"},"publicPermission":"READ_WRITE"}"#,
            ], zone: "Docs")
            #expect(batch.recordErrors == [nil, nil])
            #expect(batch.records.first?["share"]?.objectValue?["recordName"] == .string("doc-share"))
            guard let guid = batch.records.last?["shortGUID"]?.stringValue else { throw TestFailure("\(batch.json)") }
            let link = try await client.send(.get, "/share/\(guid)")
            #expect(link["containerIdentifier"] == .string(TestServer.container))
            #expect(link["environment"] == .string("development"))
            let page = try await client.send(.get, "/share/\(guid)", headers: [.accept: "text/html"])
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(try await client.send(.get, "/share/unknown").errorCode == "NOT_FOUND")

            // A failing operation rolls the share back with the rest of an atomic batch.
            let failed = try await alice.save([
                #"{"recordName":"doc2","recordType":"Doc","fields":{}}"#,
                #"{"recordName":"doc2-share","recordType":"cloudkit.share","forRecord":{"recordName":"doc2"}}"#,
                #"{"recordName":"doc","recordType":"Doc","fields":{}}"#,
            ], zone: "Docs")
            #expect(failed.recordErrors == ["ATOMIC_ERROR", "ATOMIC_ERROR", "CONFLICT"])
            let none = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Docs"},"records":[{"recordName":"doc2-share"}]}"#)
            #expect(none.recordErrors == ["NOT_FOUND"])
        }
    }
}
