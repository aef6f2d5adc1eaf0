/// A live zone as a backend stores it: its row's id, and the zone it is.
public struct ZoneRow: Sendable, Hashable {
    public var id: Int64
    public var zone: ZoneRef

    public init(id: Int64, zone: ZoneRef) {
        self.id = id
        self.zone = zone
    }
}
