import Foundation

/// Resolves share links; each link's metadata goes to its block, then `fetchShareMetadataResultBlock` (or
/// `fetchShareMetadataCompletionBlock`) ends the operation, with `partialFailure` when some failed. Run it with
/// `CKContainer.add(_:)`.
open class CKFetchShareMetadataOperation: CKOperation, @unchecked Sendable {
    open var shareURLs: [URL]?
    open var shouldFetchRootRecord = false
    open var rootRecordDesiredKeys: [CKRecord.FieldKey]?

    open var perShareMetadataResultBlock: ((URL, Result<CKShare.Metadata, any Error>) -> Void)?
    /// CloudKit's older form of ``perShareMetadataResultBlock``.
    open var perShareMetadataBlock: ((URL, CKShare.Metadata?, (any Error)?) -> Void)?
    open var fetchShareMetadataResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``fetchShareMetadataResultBlock``.
    open var fetchShareMetadataCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    public convenience init(shareURLs: [URL]) {
        self.init()
        self.shareURLs = shareURLs
    }

    override func execute() async {
        let urls = shareURLs ?? []
        let results = await resultsByItem(urls, stopping: { isCancelled }) { url in try await container.shareMetadata(for: url, shouldFetchRootRecord: shouldFetchRootRecord) }
        guard !isCancelled else { return finish(reported(CancellationError())) }
        let fetched = ItemResults(urls, results) { url, result in
            perShareMetadataResultBlock?(url, result)
            perShareMetadataBlock?(url, try? result.get(), result.failure)
        }
        finish(CKError.partialFailure(fetched.failures, "share links could not be resolved"))
    }

    private func finish(_ error: (any Error)?) {
        fetchShareMetadataResultBlock?(error.map { .failure($0) } ?? .success(()))
        fetchShareMetadataCompletionBlock?(error)
    }
}

/// Accepts shares; each share's result goes to its block, then `acceptSharesResultBlock` (or
/// `acceptSharesCompletionBlock`) ends the operation, with `partialFailure` when some failed. Run it with
/// `CKContainer.add(_:)`.
open class CKAcceptSharesOperation: CKOperation, @unchecked Sendable {
    open var shareMetadatas: [CKShare.Metadata]?

    open var perShareResultBlock: ((CKShare.Metadata, Result<CKShare, any Error>) -> Void)?
    /// CloudKit's older form of ``perShareResultBlock``.
    open var perShareCompletionBlock: ((CKShare.Metadata, CKShare?, (any Error)?) -> Void)?
    open var acceptSharesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``acceptSharesResultBlock``.
    open var acceptSharesCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    public convenience init(shareMetadatas: [CKShare.Metadata]) {
        self.init()
        self.shareMetadatas = shareMetadatas
    }

    override func execute() async {
        let metadatas = shareMetadatas ?? []
        let results = await resultsByItem(metadatas, stopping: { isCancelled }) { metadata in try await container.accept(metadata) }
        guard !isCancelled else { return finish(reported(CancellationError())) }
        let accepted = ItemResults(metadatas, results) { metadata, result in
            perShareResultBlock?(metadata, result)
            perShareCompletionBlock?(metadata, try? result.get(), result.failure)
        }
        finish(CKError.partialFailure(accepted.failures, "shares could not be accepted"))
    }

    private func finish(_ error: (any Error)?) {
        acceptSharesResultBlock?(error.map { .failure($0) } ?? .success(()))
        acceptSharesCompletionBlock?(error)
    }
}

/// Finds participants to add to a share by email address, phone number or user record ID. Run it with
/// `CKContainer.add(_:)`.
open class CKFetchShareParticipantsOperation: CKOperation, @unchecked Sendable {
    open var userIdentityLookupInfos: [CKUserIdentity.LookupInfo]?

    open var perShareParticipantResultBlock: ((CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>) -> Void)?
    /// CloudKit's older forms of ``perShareParticipantResultBlock``.
    open var perShareParticipantCompletionBlock: ((CKUserIdentity.LookupInfo, CKShare.Participant?, (any Error)?) -> Void)?
    open var shareParticipantFetchedBlock: ((CKShare.Participant) -> Void)?
    open var fetchShareParticipantsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``fetchShareParticipantsResultBlock``.
    open var fetchShareParticipantsCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    override func execute() async {
        let lookups = userIdentityLookupInfos ?? []
        let results = await resultsByItem(lookups, stopping: { isCancelled }) { lookup in try await container.shareParticipant(for: lookup) }
        guard !isCancelled else { return finish(reported(CancellationError())) }
        let fetched = ItemResults(lookups, results) { lookup, result in
            perShareParticipantResultBlock?(lookup, result)
            perShareParticipantCompletionBlock?(lookup, try? result.get(), result.failure)
            if case .success(let participant) = result { shareParticipantFetchedBlock?(participant) }
        }
        finish(CKError.partialFailure(fetched.failures, "share participants could not be found"))
    }

    private func finish(_ error: (any Error)?) {
        fetchShareParticipantsResultBlock?(error.map { .failure($0) } ?? .success(()))
        fetchShareParticipantsCompletionBlock?(error)
    }
}

/// Finds discoverable users; each one found goes to `userIdentityDiscoveredBlock` with the lookup that found them
/// (the others are left out, as in CloudKit). Run it with `CKContainer.add(_:)`.
open class CKDiscoverUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    open var userIdentityLookupInfos: [CKUserIdentity.LookupInfo] = []

    open var userIdentityDiscoveredBlock: ((CKUserIdentity, CKUserIdentity.LookupInfo) -> Void)?
    open var discoverUserIdentitiesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``discoverUserIdentitiesResultBlock``.
    open var discoverUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let found = try await container.discover(userIdentityLookupInfos)
            for lookup in userIdentityLookupInfos {
                if let identity = found[lookup] { userIdentityDiscoveredBlock?(identity, lookup) }
            }
            discoverUserIdentitiesResultBlock?(.success(()))
            discoverUserIdentitiesCompletionBlock?(nil)
        } catch {
            let error = reported(error)
            discoverUserIdentitiesResultBlock?(.failure(error))
            discoverUserIdentitiesCompletionBlock?(error)
        }
    }
}

/// Finds the user's contacts who use the app: a Stratus server keeps no address books, so it finds nobody
/// (`CKContainer.discoverAllIdentities`).
open class CKDiscoverAllUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    open var userIdentityDiscoveredBlock: ((CKUserIdentity) -> Void)?
    open var discoverAllUserIdentitiesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``discoverAllUserIdentitiesResultBlock``.
    open var discoverAllUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            for identity in try await container.discoverAllIdentities() { userIdentityDiscoveredBlock?(identity) }
            discoverAllUserIdentitiesResultBlock?(.success(()))
            discoverAllUserIdentitiesCompletionBlock?(nil)
        } catch {
            let error = reported(error)
            discoverAllUserIdentitiesResultBlock?(.failure(error))
            discoverAllUserIdentitiesCompletionBlock?(error)
        }
    }
}

extension Result {
    /// The error of a failure; `nil` for a success (the older blocks' error argument).
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
