import CloudKit
import Foundation

/// An operations-based app: posts on a public board, a subscription to urgent ones, and a private plan shared by
/// email. Every call goes through a `CKOperation` and its blocks, as apps written before async/await do.
final class Bulletin: @unchecked Sendable {
    let container: CKContainer
    let planZoneID = CKRecordZone.ID(zoneName: "Plans", ownerName: CKCurrentUserDefaultName)

    init(container: CKContainer) {
        self.container = container
    }

    /// Saves a post in the public database.
    func post(_ text: String) async throws -> CKRecord {
        let post = CKRecord(recordType: "Post")
        post["text"] = text as CKRecordValue
        post["posted"] = Date() as CKRecordValue
        return try await withCheckedThrowingContinuation { continuation in
            let operation = CKModifyRecordsOperation(recordsToSave: [post], recordIDsToDelete: nil)
            operation.savePolicy = .allKeys
            let saved = Collected<CKRecord>()
            operation.perRecordSaveBlock = { _, result in
                if case .success(let record) = result { saved.append(record) }
            }
            operation.modifyRecordsResultBlock = { result in
                switch result {
                case .success: continuation.resume(returning: saved.items.first ?? post)
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
            container.publicCloudDatabase.add(operation)
        }
    }

    /// Every post, newest first, read `pageSize` at a time through the query's cursor.
    func posts(pageSize: Int = 2) async throws -> [String] {
        let query = CKQuery(recordType: "Post", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "posted", ascending: false)]
        let texts = Collected<String>()
        var cursor: CKQueryOperation.Cursor?
        repeat {
            let operation = cursor.map(CKQueryOperation.init(cursor:)) ?? CKQueryOperation(query: query)
            operation.resultsLimit = pageSize
            cursor = try await withCheckedThrowingContinuation { continuation in
                operation.recordMatchedBlock = { _, result in
                    if case .success(let record) = result, let text = record["text"] as? String { texts.append(text) }
                }
                operation.queryResultBlock = { result in
                    continuation.resume(with: result)
                }
                container.publicCloudDatabase.add(operation)
            }
        } while cursor != nil
        return texts.items
    }

    /// Subscribes to new posts that start with "Urgent", and answers the subscriptions the database has.
    func subscribeToUrgentPosts() async throws -> [CKSubscription.ID] {
        let subscription = CKQuerySubscription(
            recordType: "Post", predicate: NSPredicate(format: "text BEGINSWITH %@", "Urgent"), subscriptionID: "urgent-posts",
            options: [.firesOnRecordCreation]
        )
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "An urgent post"
        info.shouldSendContentAvailable = true
        subscription.notificationInfo = info
        let database = container.publicCloudDatabase
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let operation = CKModifySubscriptionsOperation(subscriptionsToSave: [subscription], subscriptionIDsToDelete: nil)
            operation.modifySubscriptionsCompletionBlock = { _, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
            database.add(operation)
        }
        return try await withCheckedThrowingContinuation { continuation in
            let operation = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation()
            operation.fetchSubscriptionCompletionBlock = { subscriptions, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: subscriptions.map { Array($0.keys).sorted() } ?? []) }
            }
            database.add(operation)
        }
    }

    /// Makes a plan in a private zone and shares it, read-only, with the user who has this email address; answers
    /// the share's link.
    func sharePlan(_ title: String, with email: String) async throws -> URL {
        let database = container.privateCloudDatabase
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let operation = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: planZoneID)], recordZoneIDsToDelete: nil)
            operation.modifyRecordZonesCompletionBlock = { _, _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
            database.add(operation)
        }
        let participant: CKShare.Participant = try await withCheckedThrowingContinuation { continuation in
            container.fetchShareParticipant(withEmailAddress: email) { participant, error in
                if let participant { continuation.resume(returning: participant) } else { continuation.resume(throwing: error ?? CKError(.unknownItem)) }
            }
        }
        participant.permission = .readOnly
        let plan = CKRecord(recordType: "Plan", recordID: CKRecord.ID(recordName: UUID().uuidString, zoneID: planZoneID))
        plan["title"] = title as CKRecordValue
        let share = CKShare(rootRecord: plan)
        share[CKShare.SystemFieldKey.title] = title as CKRecordValue
        share.publicPermission = .none
        share.addParticipant(participant)
        let saved: CKShare = try await withCheckedThrowingContinuation { continuation in
            let operation = CKModifyRecordsOperation(recordsToSave: [plan, share], recordIDsToDelete: nil)
            operation.modifyRecordsCompletionBlock = { records, _, error in
                if let share = records?.compactMap({ $0 as? CKShare }).first {
                    continuation.resume(returning: share)
                } else {
                    continuation.resume(throwing: error ?? CKError(.internalError))
                }
            }
            database.add(operation)
        }
        guard let url = saved.url else { throw CKError(.internalError) }
        return url
    }

    /// Opens a share link: accepts the share and answers the shared plan's title.
    func openPlan(_ url: URL) async throws -> String {
        let metadata: CKShare.Metadata = try await withCheckedThrowingContinuation { continuation in
            let operation = CKFetchShareMetadataOperation(shareURLs: [url])
            operation.shouldFetchRootRecord = true
            operation.perShareMetadataResultBlock = { _, result in
                continuation.resume(with: result)
            }
            container.add(operation)
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let operation = CKAcceptSharesOperation(shareMetadatas: [metadata])
            operation.acceptSharesResultBlock = { result in
                continuation.resume(with: result)
            }
            container.add(operation)
        }
        guard let rootID = metadata.hierarchicalRootRecordID else { throw CKError(.unknownItem) }
        let plan: CKRecord = try await withCheckedThrowingContinuation { continuation in
            container.sharedCloudDatabase.fetch(withRecordID: rootID) { record, error in
                if let record { continuation.resume(returning: record) } else { continuation.resume(throwing: error ?? CKError(.unknownItem)) }
            }
        }
        return plan["title"] as? String ?? ""
    }
}

/// What an operation's blocks hand over one by one, on the operation's thread.
final class Collected<Item>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Item] = []

    func append(_ item: Item) {
        lock.withLock { stored.append(item) }
    }

    var items: [Item] { lock.withLock { stored } }
}
