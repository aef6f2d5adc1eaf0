import Foundation
import StratusCloudKit
import StratusStoreTesting
import StratusTestSupport
import Testing

/// CKQuery with NSPredicate's format language (supplied on Linux), sort descriptors and cursors, and the record
/// operations with both their block styles, against a live server.
@Suite struct CloudKitQueryTests {
    /// Four messages in the public database, as the query tests of StratusKit use.
    static func messages(_ server: KitTestServer) async throws -> CKDatabase {
        let database = try await CloudKitRecordsTests.signedUp(server, "ann@example.com").publicCloudDatabase
        let now = Date()
        let samples: [(String, Int, Double, Double, Date, [String])] = [
            ("a", 1, 48.8570, 2.3530, now.addingTimeInterval(-3_600), ["x"]),
            ("b", 0, 48.8600, 2.3600, now.addingTimeInterval(-60), ["y"]),
            ("c", 1, 51.5072, -0.1276, now.addingTimeInterval(-7_200), ["x", "y"]),
            ("d", 1, 48.8580, 2.3500, now.addingTimeInterval(3_600), []),
        ]
        let records = samples.map { name, current, latitude, longitude, published, tags in
            let record = CKRecord(recordType: "Message", recordID: CKRecord.ID(recordName: name))
            record["isCurrent"] = current
            record["location"] = CLLocation(latitude: latitude, longitude: longitude)
            record["publishedAt"] = published
            if !tags.isEmpty { record["tags"] = tags }
            record["title"] = "Message \(name)"
            return record
        }
        let results = try await database.modifyRecords(saving: records, deleting: [])
        for (_, result) in results.saveResults { _ = try result.get() }
        return database
    }

    @Test("predicates in CloudKit's format language select and sort as on CloudKit; OR fails with invalidArguments")
    func predicates() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.messages(server)
            let paris = CLLocation(latitude: 48.8566, longitude: 2.3522)
            func names(_ predicate: NSPredicate, _ sort: [NSSortDescriptor] = [NSSortDescriptor(key: "recordID", ascending: true)]) async throws -> [String] {
                let query = CKQuery(recordType: "Message", predicate: predicate)
                query.sortDescriptors = sort
                return try await database.records(matching: query).matchResults.map(\.0.recordName)
            }
            #expect(try await names(NSPredicate(format: "isCurrent == 1")) == ["a", "c", "d"])
            #expect(try await names(NSPredicate(format: "isCurrent == %d AND publishedAt <= %@", 1, Date() as any CVarArg)) == ["a", "c"])
            #expect(try await names(NSPredicate(format: "%K BEGINSWITH %@", "title", "Message")) == ["a", "b", "c", "d"])
            #expect(try await names(NSPredicate(format: "tags CONTAINS %@", "y")) == ["b", "c"])
            #expect(try await names(NSPredicate(format: "%@ IN tags", "x")) == ["a", "c"])
            #expect(try await names(NSPredicate(format: "isCurrent IN %@", [0])) == ["b"])
            #expect(try await names(NSPredicate(format: "NOT (isCurrent IN %@)", [0])) == ["a", "c", "d"])
            #expect(try await names(NSPredicate(format: "recordID == %@", CKRecord.ID(recordName: "c"))) == ["c"])
            #expect(try await names(NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < 5", paris)) == ["a", "b", "d"])
            #expect(try await names(NSCompoundPredicate(andPredicateWithSubpredicates: [
                NSPredicate(format: "isCurrent != 0"), NSPredicate(format: "distanceToLocation:fromLocation:(location, %@) < %f", paris, 5.0),
            ])) == ["a", "d"])
            #expect(try await names(NSPredicate(value: true), [NSSortDescriptor(key: "publishedAt", ascending: false)]) == ["d", "b", "a", "c"])
            #expect(try await names(NSPredicate(format: "TRUEPREDICATE"), [CKLocationSortDescriptor(key: "location", relativeLocation: paris)]) == ["a", "d", "b", "c"])
            do {
                _ = try await names(NSPredicate(format: "isCurrent == 1 OR isCurrent == 0"))
                Issue.record("a predicate with OR ran")
            } catch let error as CKError {
                #expect(error.code == .invalidArguments && error.localizedDescription.contains("OR"), "\(error)")
            }
        }
    }

    @Test("self CONTAINS finds every word in any string field, with other predicates; a subscription on it reads back the same predicate")
    func tokensOfEveryField() async throws {
        try await KitTestServer.run { server in
            let database = try await CloudKitRecordsTests.signedUp(server, "ann@example.com").publicCloudDatabase
            let notes: [(String, String, String)] = [("n1", "Beach day", "sun and sand"), ("n2", "Groceries", "Milk, sand paper"), ("n3", "Trip", "beach house by the SEA")]
            for (name, title, body) in notes {
                let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))
                note["title"] = title
                note["body"] = body
                note["stars"] = name == "n3" ? 5 : 3
                _ = try await database.save(note)
            }
            func names(_ predicate: NSPredicate) async throws -> [String] {
                let query = CKQuery(recordType: "Note", predicate: predicate)
                query.sortDescriptors = [NSSortDescriptor(key: "recordID", ascending: true)]
                return try await database.records(matching: query).matchResults.map(\.0.recordName)
            }
            #expect(try await names(NSPredicate(format: "self CONTAINS %@", "beach")) == ["n1", "n3"])
            #expect(try await names(NSPredicate(format: "self contains 'sand'")) == ["n1", "n2"])
            #expect(try await names(NSPredicate(format: "self CONTAINS %@", "Beach sea")) == ["n3"])
            #expect(try await names(NSPredicate(format: "self CONTAINS %@ AND stars > 4", "beach")) == ["n3"])
            #expect(try await names(NSPredicate(format: "self CONTAINS %@", "snow")) == [])

            let subscription = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(format: "self CONTAINS %@", "beach"), subscriptionID: "beach", options: [.firesOnRecordCreation])
            _ = try await database.save(subscription)
            let read = try #require(try await database.subscription(for: "beach") as? CKQuerySubscription)
            #expect(try await names(read.predicate) == ["n1", "n3"], "\(read.predicate)")
        }
    }

    @Test("CKQueryOperation pages with resultsLimit and a cursor through recordMatchedBlock and queryResultBlock, and through the older blocks")
    func queryOperations() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.messages(server)
            let query = CKQuery(recordType: "Message", predicate: NSPredicate(value: true))
            query.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let first = CKQueryOperation(query: query)
            first.resultsLimit = 3
            let matched = LockedBox<[String]>([])
            first.recordMatchedBlock = { id, result in
                if case .success(let record) = result { matched.update { $0.append("\(id.recordName):\(record["title"] as? String ?? "")") } }
            }
            let cursor = try await OperationBlocks.answer("the first page") { (done: @escaping @Sendable (Result<CKQueryOperation.Cursor?, any Error>) -> Void) in
                first.queryResultBlock = { done($0) }
                database.add(first)
            }.get()
            #expect(matched.value == ["a:Message a", "b:Message b", "c:Message c"])
            let next = CKQueryOperation(cursor: try #require(cursor))
            let fetched = LockedBox<[String]>([])
            next.recordFetchedBlock = { record in fetched.update { $0.append(record.recordID.recordName) } }
            let end = try await OperationBlocks.answer("the last page") { (done: @escaping @Sendable (CKQueryOperation.Cursor??) -> Void) in
                next.queryCompletionBlock = { cursor, error in done(error == nil ? .some(cursor) : nil) }
                database.add(next)
            }
            #expect(fetched.value == ["d"] && end != nil && end! == nil)
        }
    }

    @Test("CKModifyRecordsOperation reports each record, then partialFailure with zoneNotFound by ID; savePolicy changedKeys overwrites; a cancelled one reports operationCancelled")
    func modifyOperations() async throws {
        try await KitTestServer.run { server in
            let container = try await CloudKitRecordsTests.signedUp(server, "bo@example.com")
            let database = container.privateCloudDatabase
            let kept = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "kept"))
            kept["title"] = "one"
            let lost = CKRecord(recordType: "Note", zoneID: CKRecordZone.ID(zoneName: "Missing"))
            let operation = CKModifyRecordsOperation(recordsToSave: [kept, lost], recordIDsToDelete: nil)
            operation.isAtomic = false
            let perRecord = LockedBox<[String: String]>([:])
            operation.perRecordSaveBlock = { id, result in
                perRecord.update { $0[id.recordName] = (try? result.get()) != nil ? "saved" : "failed" }
            }
            let (saved, error) = try await OperationBlocks.answer("the modification") { (done: @escaping @Sendable (([CKRecord]?, (any Error)?)) -> Void) in
                operation.modifyRecordsCompletionBlock = { saved, _, error in done((saved, error)) }
                database.add(operation)
            }
            #expect(perRecord.value == ["kept": "saved", lost.recordID.recordName: "failed"])
            #expect(saved?.map(\.recordID.recordName) == ["kept"])
            let partial = try #require(error as? CKError)
            #expect(partial.code == .partialFailure)
            #expect((partial.partialErrorsByItemID?[lost.recordID] as? CKError)?.code == .zoneNotFound, "\(partial)")

            let stale = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "kept"))
            stale["title"] = "overwritten"
            let overwrite = CKModifyRecordsOperation(recordsToSave: [stale], recordIDsToDelete: nil)
            overwrite.savePolicy = .changedKeys
            let result = try await OperationBlocks.answer("the overwrite") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                overwrite.modifyRecordsResultBlock = { done($0) }
                database.add(overwrite)
            }
            #expect((try? result.get()) != nil, "\(result)")
            #expect(try await database.record(for: kept.recordID)["title"] as? String == "overwritten")

            let cancelled = CKModifyRecordsOperation(recordsToSave: [CKRecord(recordType: "Note")], recordIDsToDelete: nil)
            cancelled.cancel()
            let cancelledResult = try await OperationBlocks.answer("the cancelled operation") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                cancelled.modifyRecordsResultBlock = { done($0) }
                database.add(cancelled)
            }
            if case .failure(let error) = cancelledResult {
                #expect((error as? CKError)?.code == .operationCancelled, "\(error)")
            } else {
                Issue.record("a cancelled operation saved")
            }
        }
    }

    @Test("CKFetchRecordsOperation on the app's own OperationQueue: each record's result, then partialFailure with unknownItem")
    func fetchOperations() async throws {
        try await KitTestServer.run { server in
            let container = try await CloudKitRecordsTests.signedUp(server, "cy@example.com")
            let database = container.privateCloudDatabase
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "here"))
            note["title"] = "hi"
            _ = try await database.save(note)
            let operation = CKFetchRecordsOperation(recordIDs: [note.recordID, CKRecord.ID(recordName: "absent")])
            operation.database = database
            let queue = OperationQueue()
            let (fetched, error) = try await OperationBlocks.answer("the fetch") { (done: @escaping @Sendable (([CKRecord.ID: CKRecord]?, (any Error)?)) -> Void) in
                operation.fetchRecordsCompletionBlock = { records, error in done((records, error)) }
                queue.addOperation(operation)
            }
            #expect(fetched?[note.recordID]?["title"] as? String == "hi")
            let partial = try #require(error as? CKError)
            #expect((partial.partialErrorsByItemID?[CKRecord.ID(recordName: "absent")] as? CKError)?.code == .unknownItem, "\(partial)")
        }
    }

    @Test("an operation of a group runs in the group's container; a long-lived one is named by the container while it runs, and not after")
    func groupsAndLongLivedOperations() async throws {
        try await KitTestServer.run { server in
            let container = try await CloudKitRecordsTests.signedUp(server, "di@example.com")
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "kept"))
            note["title"] = "hi"
            _ = try await container.privateCloudDatabase.save(note)

            let group = CKOperationGroup()
            group.name = "first sync"
            group.defaultConfiguration.container = container
            let operation = CKFetchRecordsOperation(recordIDs: [note.recordID])
            operation.configuration = nil
            operation.group = group
            let configuration = CKOperation.Configuration()
            configuration.container = nil
            configuration.isLongLived = true
            operation.configuration = configuration
            let seenWhileRunning = LockedBox<[String]?>(nil)
            let persisted = LockedBox(false)
            operation.longLivedOperationWasPersistedBlock = { persisted.value = true }
            operation.perRecordResultBlock = { _, _ in
                // The operation waits here (at most 30 s) while the container lists what runs.
                let listed = DispatchSemaphore(value: 0)
                container.fetchAllLongLivedOperationIDs { ids, _ in
                    seenWhileRunning.value = ids
                    listed.signal()
                }
                _ = listed.wait(timeout: .now() + 30)
            }
            let queue = OperationQueue()
            let result = try await OperationBlocks.answer("the grouped fetch") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                operation.fetchRecordsResultBlock = { done($0) }
                queue.addOperation(operation)
            }
            try result.get()
            try await Polling.until("the running operation's IDs", { seenWhileRunning.value != nil })
            #expect(persisted.value && seenWhileRunning.value == [operation.operationID])
            try await Polling.until("the ended operation to leave the list", { try await container.allLongLivedOperationIDs().isEmpty })
            #expect(try await container.longLivedOperation(for: operation.operationID) == nil)
        }
    }
}
