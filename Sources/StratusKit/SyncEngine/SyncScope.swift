import Foundation

/// What a ``SyncEngine`` fetches (a Stratus addition to CKSyncEngine): every zone or chosen ones, records of every
/// type or of chosen ones, or only the records a query matches. An app syncs part of a user's data (the lists the user opened, not their archive) and
/// widens or narrows that later with ``SyncEngine/setScope(_:)``.
///
/// ```swift
/// await engine.setScope(SyncScope(zoneIDs: [work, personal], recordTypes: ["List", "Item"]))
/// ```
public struct SyncScope: Sendable, Hashable, Codable {
    /// The zones fetched; `nil`: every zone of the database.
    public var zoneIDs: Set<Zone.ID>?
    /// The record types fetched; `nil`: every type.
    public var recordTypes: Set<String>?
    /// Only the records this query matches, in every zone of the scope (the server filters; a record that stops
    /// matching comes as a deletion); its record type is the only one fetched.
    public var query: Query?

    public init(zoneIDs: Set<Zone.ID>? = nil, recordTypes: Set<String>? = nil, query: Query? = nil) {
        self.zoneIDs = zoneIDs
        self.recordTypes = recordTypes
        self.query = query
    }

    /// Every zone and every record type.
    public static let everything = SyncScope()

    /// The record types fetched, the query's included; `nil`: every type.
    var fetchedRecordTypes: Set<String>? {
        guard let query else { return recordTypes }
        return (recordTypes ?? [query.recordType]).intersection([query.recordType])
    }

    /// Whether the scope fetches a zone.
    public func includes(_ zoneID: Zone.ID) -> Bool {
        zoneIDs?.contains(zoneID) ?? true
    }

    /// Whether `other` fetches zones this scope does not.
    func addsZones(_ other: SyncScope) -> Bool {
        guard let zones = zoneIDs else { return false }
        guard let others = other.zoneIDs else { return true }
        return !others.isSubset(of: zones)
    }

    /// Whether `other` fetches record types this scope does not.
    func addsRecordTypes(_ other: SyncScope) -> Bool {
        guard let types = fetchedRecordTypes else { return false }
        guard let others = other.fetchedRecordTypes else { return true }
        return !others.isSubset(of: types)
    }
}

extension SyncEngine {
    /// Changes what the engine fetches from now on, and asks for a fetch.
    ///
    /// - Narrowing: zones and record types that leave the scope are no longer fetched; the engine forgets those
    ///   zones' tokens and reports ``Event/syncScopeNarrowed(removedZoneIDs:keptRecordTypes:)`` so the app drops what
    ///   it keeps of them.
    /// - Widening: zones that enter the scope are fetched whole; record types that enter it make every zone in the
    ///   scope fetched again from the start (reported with `refetched`), since the tokens held did not cover them.
    ///
    /// The scope is part of the engine's state, kept across launches.
    public func setScope(_ scope: SyncScope) async {
        await exclusively {
            let old = state.scope
            guard scope != old else { return }
            let removedZones = state.zoneTokens.keys.filter { !scope.includes($0) }.sorted { $0.zoneName < $1.zoneName }
            for zoneID in removedZones { state.zoneTokens[zoneID] = nil }
            if old.addsRecordTypes(scope) || old.query != scope.query {
                refetchedByScope.formUnion(state.zoneTokens.keys)
                state.zoneTokens = [:]
                state.databaseToken = nil
            } else if old.addsZones(scope) {
                // The database's zones come again from the start; zones with a token go on from it.
                state.databaseToken = nil
            }
            state.scope = scope
            let (oldTypes, newTypes) = (old.fetchedRecordTypes, scope.fetchedRecordTypes)
            let typesNarrowed = newTypes != nil && (oldTypes == nil || !oldTypes!.isSubset(of: newTypes!))
            if !removedZones.isEmpty || typesNarrowed {
                await emit(.syncScopeNarrowed(removedZoneIDs: removedZones, keptRecordTypes: typesNarrowed ? newTypes : nil))
            }
            await emit(.stateUpdate(state.serialization))
        }
        fetchWanted = true
        wake.yield()
    }

    /// What the engine fetches (``setScope(_:)``).
    public var scope: SyncScope { state.scope }
}
