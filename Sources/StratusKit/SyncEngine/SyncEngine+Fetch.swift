import Foundation

extension SyncEngine {
    /// Fetches what changed since the last fetch: the database's zone changes, then each changed zone's records,
    /// page by page, reporting each as an event and moving the tokens on as the app receives it.
    ///
    /// A token the server no longer accepts (the zone was deleted and made again, or the token is damaged) leads
    /// to a full refetch of what it covered, reported with `refetched`, never to a gap.
    /// - Throws: ``StratusError``; the network's and the server's passing failures are worth retrying.
    public func fetchChanges() async throws {
        try await exclusively { try await fetch() }
    }

    /// Fetches the database's changes, and the record changes of the zones `included` takes, those of
    /// `prioritized` first (`CKSyncEngine.FetchChangesOptions`); the other changed zones are remembered and fetched
    /// by a later fetch that includes them.
    package func fetchChanges(inZones included: @escaping @Sendable (Zone.ID) -> Bool, prioritized: [Zone.ID]) async throws {
        try await exclusively { try await fetch(inZones: included, prioritized: prioritized) }
    }

    /// Zones that changed on the server and whose changes a fetch limited to other zones left for later.
    package var zoneIDsWithUnfetchedChanges: [Zone.ID] {
        state.unfetchedZones.sorted { ($0.ownerName, $0.zoneName) < ($1.ownerName, $1.zoneName) }
    }

    /// ``fetchChanges()`` within an operation already running.
    func fetchChangesInOperation() async throws {
        try await fetch()
    }

    /// ``fetchChanges(inZones:prioritized:)`` within an operation already running.
    func fetchChangesInOperation(inZones included: @Sendable (Zone.ID) -> Bool, prioritized: [Zone.ID]) async throws {
        try await fetch(inZones: included, prioritized: prioritized)
    }

    private func fetch(inZones included: @Sendable (Zone.ID) -> Bool = { _ in true }, prioritized: [Zone.ID] = []) async throws {
        try await checkAccount()
        await emit(.willFetchChanges)
        var modified: [Zone.ID] = []
        var deleted: [Zone.ID] = []
        var token = state.databaseToken
        while true {
            let page: (modifications: [Zone.ID], deletions: [Zone.ID], changeToken: SyncToken, moreComing: Bool)
            do {
                page = try await database.databaseChanges(since: token)
            } catch let error as StratusError where error.code == .changeTokenExpired && token != nil {
                // Every zone again, from its own token.
                (token, modified, deleted) = (nil, [], [])
                continue
            }
            modified += page.modifications.filter { !modified.contains($0) }
            deleted += page.deletions.filter { !deleted.contains($0) }
            token = page.changeToken
            if !page.moreComing { break }
        }
        // A zone the app deleted and whose deletion is not sent yet stays deleted: its changes are not fetched.
        let deletedHere = state.zonesToDelete
        modified.removeAll(where: deletedHere.contains)
        // A zone both deleted and changed was made again: the app drops the old one, and the new one is fetched whole.
        if !modified.isEmpty || !deleted.isEmpty {
            for zoneID in deleted { state.zoneTokens[zoneID] = nil }
            await emit(.fetchedDatabaseChanges(modifications: modified.filter(state.scope.includes), deletions: deleted))
        }
        state.unfetchedZones.subtract(deleted)
        state.unfetchedZones.subtract(deletedHere)
        let changed = modified + state.unfetchedZones.filter { !modified.contains($0) }
        let ordered = changed.filter(prioritized.contains) + changed.filter { !prioritized.contains($0) }
        for zoneID in ordered where state.scope.includes(zoneID) {
            guard included(zoneID) else {
                state.unfetchedZones.insert(zoneID)
                continue
            }
            try await fetchZone(zoneID)
            state.unfetchedZones.remove(zoneID)
        }
        state.databaseToken = token
        await emit(.stateUpdate(state.serialization))
        await emit(.didFetchChanges)
    }

    /// Fetches, before records are first sent to them, the zones that pending changes go to and that the engine
    /// holds no token for (a zone this device made, or never fetched). A record the device sends is then always
    /// after a token it holds, so that its deletion elsewhere reaches the device: a feed read from no token holds no
    /// deletions. A zone that does not exist is left to the send, which reports its changes failed.
    func fetchZonesBeforeFirstSend() async throws {
        let zones = Set(state.pendingRecordZoneChanges.map(\.recordID.zoneID))
            .filter { state.zoneTokens[$0] == nil && state.scope.includes($0) }
            .sorted { ($0.ownerName, $0.zoneName) < ($1.ownerName, $1.zoneName) }
        for zoneID in zones {
            try await fetchZone(zoneID, beforeSend: true)
        }
        if !zones.isEmpty { await emit(.stateUpdate(state.serialization)) }
    }

    /// Fetches one zone's changes, page by page, from its token.
    private func fetchZone(_ zoneID: Zone.ID, beforeSend: Bool = false) async throws {
        await emit(.willFetchRecordZoneChanges(zoneID: zoneID))
        // A zone whose token a widened scope dropped comes again from the start.
        var refetched = refetchedByScope.remove(zoneID) != nil
        do {
            // The next page is asked for while the app handles this one, so the network, the server and the decoding
            // overlap with the app's writes.
            var nextPage: Task<ZonePage, any Error>?
            defer { nextPage?.cancel() }
            while true {
                let page: ZonePage
                do {
                    if let prefetched = nextPage {
                        nextPage = nil
                        page = try await prefetched.value
                    } else {
                        page = try await zonePage(zoneID, since: state.zoneTokens[zoneID])
                    }
                } catch let error as StratusError where error.code == .changeTokenExpired && state.zoneTokens[zoneID] != nil {
                    state.zoneTokens[zoneID] = nil
                    refetched = true
                    continue
                }
                if page.moreComing {
                    let (database, token, scope) = (database, page.changeToken, state.scope)
                    nextPage = Task { try await Self.zonePage(database, zoneID, since: token, scope: scope) }
                }
                // In commit order (by modification, then name); the order is found on keys, not by moving records.
                let fetched = page.modificationResultsByID.values.compactMap { try? $0.get() }
                let order = fetched.indices.sorted { left, right in
                    (fetched[left].modificationDate ?? .distantPast, fetched[left].recordID.recordName)
                        < (fetched[right].modificationDate ?? .distantPast, fetched[right].recordID.recordName)
                }
                let records = order.map { fetched[$0] }
                await emit(.fetchedRecordZoneChanges(zoneID: zoneID, modifications: records, deletions: page.deletions, refetched: refetched))
                state.zoneTokens[zoneID] = page.changeToken
                await emit(.stateUpdate(state.serialization))
                if !page.moreComing { break }
            }
            await emit(.didFetchRecordZoneChanges(zoneID: zoneID, error: nil))
        } catch let error as StratusError where error.code == .zoneNotFound && beforeSend {
            await emit(.didFetchRecordZoneChanges(zoneID: zoneID, error: error))
        } catch let error as StratusError where error.code == .zoneNotFound {
            // Deleted since the database said it changed: reported as a deletion.
            state.zoneTokens[zoneID] = nil
            await emit(.fetchedDatabaseChanges(modifications: [], deletions: [zoneID]))
            await emit(.didFetchRecordZoneChanges(zoneID: zoneID, error: error))
        } catch let error as StratusError {
            await emit(.didFetchRecordZoneChanges(zoneID: zoneID, error: error))
            throw error
        }
    }

    /// One page of a zone's changes.
    typealias ZonePage = (
        modificationResultsByID: [Record.ID: Result<Record, any Error>], deletions: [(recordID: Record.ID, recordType: String)],
        changeToken: SyncToken, moreComing: Bool
    )

    private func zonePage(_ zoneID: Zone.ID, since token: SyncToken?) async throws -> ZonePage {
        try await Self.zonePage(database, zoneID, since: token, scope: state.scope)
    }

    private static func zonePage(_ database: Database, _ zoneID: Zone.ID, since token: SyncToken?, scope: SyncScope) async throws -> ZonePage {
        try await database.recordZoneChanges(inZoneWith: zoneID, since: token, desiredRecordTypes: scope.recordTypes, matching: scope.query)
    }

    /// Once per engine: when another user is signed in than the state's, the state is the previous user's and is
    /// forgotten.
    func checkAccount() async throws {
        guard !accountChecked else { return }
        let current = try await database.container.userRecordID().recordName
        accountChecked = true
        let previous = state.userRecordName
        guard previous != current else { return }
        if previous != nil {
            state = State()
            state.userRecordName = current
            await emit(.accountChange(previousUser: previous, currentUser: current))
        } else {
            state.userRecordName = current
            if configuration.reportsFirstSignIn { await emit(.accountChange(previousUser: nil, currentUser: current)) }
        }
        await emit(.stateUpdate(state.serialization))
    }
}
