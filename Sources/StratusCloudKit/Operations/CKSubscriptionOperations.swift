import Foundation

/// Saves and deletes subscriptions; each one's result goes to its block, then `modifySubscriptionsResultBlock` (or
/// `modifySubscriptionsCompletionBlock`) ends the operation, with `partialFailure` when some failed.
open class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    open var subscriptionsToSave: [CKSubscription]?
    open var subscriptionIDsToDelete: [CKSubscription.ID]?

    open var perSubscriptionSaveBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    open var perSubscriptionDeleteBlock: ((CKSubscription.ID, Result<Void, any Error>) -> Void)?
    open var modifySubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``modifySubscriptionsResultBlock``.
    open var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(subscriptionsToSave: [CKSubscription]?, subscriptionIDsToDelete: [CKSubscription.ID]?) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    override func execute() async {
        let saving = subscriptionsToSave ?? []
        let deleting = subscriptionIDsToDelete ?? []
        do {
            guard !isCancelled else { throw CancellationError() }
            let results = try await targetDatabase.modifySubscriptions(saving: saving, deleting: deleting)
            var saved: [CKSubscription] = []
            var deleted: [CKSubscription.ID] = []
            var failures: [AnyHashable: any Error] = [:]
            for subscription in saving {
                let result = results.saveResults[subscription.subscriptionID] ?? .failure(CKError(.internalError))
                perSubscriptionSaveBlock?(subscription.subscriptionID, result)
                switch result {
                case .success(let made): saved.append(made)
                case .failure(let error): failures[subscription.subscriptionID] = error
                }
            }
            for id in deleting {
                let result = results.deleteResults[id] ?? .failure(CKError(.internalError))
                perSubscriptionDeleteBlock?(id, result)
                switch result {
                case .success: deleted.append(id)
                case .failure(let error): failures[id] = error
                }
            }
            let failure = CKError.partialFailure(failures, of: saving.count + deleting.count, "subscription changes failed")
            modifySubscriptionsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            modifySubscriptionsCompletionBlock?(saved, deleted, failure)
        } catch {
            let error = reported(error)
            modifySubscriptionsResultBlock?(.failure(error))
            modifySubscriptionsCompletionBlock?(nil, nil, error)
        }
    }
}

/// Fetches subscriptions by ID, or every subscription of the database (``fetchAllSubscriptionsOperation()``).
open class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    open var subscriptionIDs: [CKSubscription.ID]?

    open var perSubscriptionResultBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    open var fetchSubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``fetchSubscriptionsResultBlock``: the subscriptions fetched, by ID.
    open var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?

    public required override init() {}

    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// An operation that fetches every subscription of the database.
    open class func fetchAllSubscriptionsOperation() -> Self {
        self.init()
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let database = targetDatabase
            var results: [(CKSubscription.ID, Result<CKSubscription, any Error>)] = []
            if let subscriptionIDs {
                let found = try await database.subscriptions(for: subscriptionIDs)
                results = subscriptionIDs.map { ($0, found[$0] ?? .failure(CKError(.unknownItem))) }
            } else {
                results = try await database.allSubscriptions().map { ($0.subscriptionID, .success($0)) }
            }
            var fetched: [CKSubscription.ID: CKSubscription] = [:]
            var failures: [AnyHashable: any Error] = [:]
            for (id, result) in results {
                perSubscriptionResultBlock?(id, result)
                switch result {
                case .success(let subscription): fetched[id] = subscription
                case .failure(let error): failures[id] = error
                }
            }
            let failure = CKError.partialFailure(failures, "subscriptions could not be fetched")
            fetchSubscriptionsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            fetchSubscriptionCompletionBlock?(fetched, failure)
        } catch {
            let error = reported(error)
            fetchSubscriptionsResultBlock?(.failure(error))
            fetchSubscriptionCompletionBlock?(nil, error)
        }
    }
}
