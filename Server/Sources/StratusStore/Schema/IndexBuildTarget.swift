import StratusModel

/// What one index build indexes over records written before the index was declared: a field's values or words,
/// or a compound index. Backends keep pending builds by ``name`` (a field's, or a compound index's).
public enum IndexBuildTarget: Sendable {
    case field(String, FieldIndexing)
    case compound(CompoundIndex)

    /// The build's name: the field's, or the compound index's.
    public var name: String {
        switch self {
        case .field(let name, _): name
        case .compound(let index): index.name
        }
    }

    /// The build of `name` in a record type as the schema has it now, or `nil` when nothing is left to index.
    public init?(name: String, in type: RecordTypeSchema?) {
        if let index = type?.compoundIndexes.first(where: { $0.name == name }) {
            self = .compound(index)
            return
        }
        guard let kept = type?.indexing(of: name), !kept.isNone else { return nil }
        self = .field(name, kept)
    }

    /// The builds a schema change needs in one record type: every field it made searchable (values or words)
    /// and every compound index it added.
    public static func added(in typeName: String, from old: Schema, to type: RecordTypeSchema) -> [IndexBuildTarget] {
        var targets: [IndexBuildTarget] = []
        for field in type.fields.keys.sorted() {
            let before = old.recordTypes[typeName]?.indexing(of: field) ?? FieldIndexing()
            let after = type.indexing(of: field)
            guard (after.values && !before.values) || (after.words && !before.words) else { continue }
            targets.append(.field(field, after))
        }
        for index in type.compoundIndexes where !(old.recordTypes[typeName]?.compoundIndexes.contains(index) ?? false) {
            targets.append(.compound(index))
        }
        return targets
    }

    /// The entries of one record for this build.
    public func entries(for fields: [String: FieldValue], system: SystemFieldValues, of type: RecordTypeSchema) -> [IndexEntry] {
        switch self {
        case .field(let field, let kept):
            guard let value = fields[field] else { return [] }
            return IndexEntry.entries(field: field, value: value, kept: kept)
        case .compound(let index):
            var indexOnly = type
            indexOnly.compoundIndexes = [index]
            return IndexEntry.compoundEntries(for: fields, system: system, of: indexOnly)
        }
    }
}
