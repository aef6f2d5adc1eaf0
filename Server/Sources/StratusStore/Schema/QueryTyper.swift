import StratusModel

/// Turns a query as sent on the wire into a typed ``Query`` by checking it against the schema.
///
/// Shared by every backend, so that every backend accepts and refuses the same queries.
public enum QueryTyper {
    /// The most filters one query may have.
    public static let maximumFilters = 32

    /// Types a query.
    /// - Returns: `nil` when the record type is unknown in development: no record can match yet.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the filter or sort that does not fit;
    ///   ``StorageError/Code/notFound`` for a record type that is not valid or not in the production schema.
    public static func typedQuery(_ input: QueryInput, schema: Schema, environment: Environment) throws(StorageError) -> Query? {
        guard let recordType = schema.recordTypes[input.recordType] else {
            try SchemaResolver.checkUnknownType(input.recordType, environment: environment)
            return nil
        }
        let filters = input.filterBy ?? []
        guard filters.count <= maximumFilters else {
            throw StorageError(.invalidArgument, "a query may have at most \(maximumFilters) filters")
        }
        var query = Query(recordType: input.recordType)
        for filter in filters {
            query.filters.append(try typedFilter(filter, recordType: recordType))
        }
        for sort in input.sortBy ?? [] {
            query.sort.append(try typedSort(sort, recordType: recordType))
        }
        return query
    }

    private static func fieldReference(
        fieldName: String?, systemFieldName: String?, recordType: RecordTypeSchema, declared: FieldType?
    ) throws(StorageError) -> (FieldReference, FieldType?) {
        if let systemFieldName {
            guard let system = SystemField(wireName: systemFieldName) else {
                throw StorageError(.invalidArgument, "unknown system field '\(systemFieldName)'")
            }
            return (.system(system), FieldType(system.valueType))
        }
        guard let fieldName else {
            throw StorageError(.invalidArgument, "a filter or sort needs fieldName or systemFieldName")
        }
        if let system = SystemField(wireName: fieldName), fieldName.hasPrefix("___") {
            return (.system(system), FieldType(system.valueType))
        }
        // Every searchable string field at once, searched as one STRING (a field of that name in the schema
        // is not reachable by queries).
        if fieldName == FieldReference.allTokensName {
            return (.field(fieldName), FieldType(.string))
        }
        // `title.en`: one language of a LOCALIZED_STRING field, compared and sorted as a STRING.
        if let dot = fieldName.firstIndex(of: ".") {
            let base = String(fieldName[..<dot])
            let tag = String(fieldName[fieldName.index(after: dot)...])
            guard recordType.fields[base]?.type == FieldType(.localizedString), FieldValue.isLanguageTag(tag) else {
                throw StorageError(.invalidArgument, "'\(fieldName)' does not name a language of a LOCALIZED_STRING field")
            }
            return (.field(fieldName), FieldType(.string))
        }
        return (.field(fieldName), recordType.fields[fieldName]?.type ?? declared)
    }

    private static func typedFilter(_ input: FilterInput, recordType: RecordTypeSchema) throws(StorageError) -> Filter {
        guard let comparator = Comparator(rawValue: input.comparator) else {
            throw StorageError(.invalidArgument, "unknown comparator '\(input.comparator)'")
        }
        guard let fieldValue = input.fieldValue else {
            throw StorageError(.invalidArgument, "filter \(comparator.rawValue) needs a fieldValue")
        }
        let declared: FieldType?
        do { declared = try fieldValue.declaredType() } catch { throw StorageError(error) }
        // A declared list type on a scalar comparison (IN) describes the comparand, not the field.
        let declaredField = declared.map { comparator.takesListValue && !comparator.isListComparator ? FieldType($0.scalar) : $0 }
        let (field, knownType) = try fieldReference(
            fieldName: input.fieldName, systemFieldName: input.systemFieldName, recordType: recordType,
            declared: declaredField.map { comparator.isListComparator ? FieldType.list($0.scalar) : $0 }
        )
        let inferred = FieldValue.inferredType(of: fieldValue.value)
        guard let fieldType = knownType ?? inferred.map({ comparator.isListComparator ? .list($0.scalar) : FieldType($0.scalar) }) else {
            throw StorageError(.invalidArgument, "filter on '\(field.name)': cannot tell the value's type; send \"type\"")
        }
        if field.isAllTokens && comparator != .containsAllTokens && comparator != .containsAnyTokens {
            throw StorageError(.invalidArgument, "'\(FieldReference.allTokensName)' (every searchable field) takes CONTAINS_ALL_TOKENS or CONTAINS_ANY_TOKENS, not \(comparator.rawValue)")
        }
        try check(comparator, on: fieldType, field: field)
        let comparandType = comparator.takesListValue ? FieldType.list(fieldType.scalar) : FieldType(fieldType.scalar)
        var json = fieldValue.value
        if case .system(let system) = field, system.valueType == .string {
            json = referencedNames(in: json)
        }
        let value: FieldValue
        do {
            value = try FieldValue(json: json, as: comparandType)
        } catch {
            throw StorageError(.invalidArgument, "filter \(comparator.rawValue) on '\(field.name)': \(error.message)")
        }
        if comparator == .near {
            guard let distance = input.distance, distance.isFinite, distance >= 0 else {
                throw StorageError(.invalidArgument, "NEAR on '\(field.name)' needs a distance in metres")
            }
        }
        return Filter(comparator: comparator, field: field, value: value, distance: input.distance)
    }

    /// Clients filter on record names and creators with REFERENCE values (`{recordName, zoneID?}`), as
    /// OpenCloudKit and CloudKit's own framework write `___recordID` filters; the comparand is the name.
    private static func referencedNames(in json: JSONValue) -> JSONValue {
        switch json {
        case .object(let object): object["recordName"] ?? json
        case .array(let elements): .array(elements.map(referencedNames(in:)))
        default: json
        }
    }

    private static func check(_ comparator: Comparator, on type: FieldType, field: FieldReference) throws(StorageError) {
        func refuse(_ why: String) -> StorageError {
            StorageError(.invalidArgument, "\(comparator.rawValue) cannot be used on '\(field.name)' (\(type.wireName)): \(why)")
        }
        if type.scalar == .localizedString {
            throw refuse("name the language to compare, such as \(field.name).en")
        }
        if comparator.isListComparator {
            guard type.isList else { throw refuse("it applies to list fields") }
            if comparator == .listMemberBeginsWith || comparator == .notListMemberBeginsWith {
                guard type.scalar == .string else { throw refuse("it applies to STRING_LIST fields") }
            }
            return
        }
        guard !type.isList else { throw refuse("use a LIST_ comparator on list fields") }
        switch comparator {
        case .near:
            guard type.scalar == .location else { throw refuse("it applies to LOCATION fields") }
        case .beginsWith, .notBeginsWith, .containsAllTokens, .containsAnyTokens:
            guard type.scalar == .string else { throw refuse("it applies to STRING fields") }
        case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            guard [.string, .int64, .double, .timestamp].contains(type.scalar) else { throw refuse("values of this type are not ordered") }
        case .equals, .notEquals, .in, .notIn:
            guard ![.location, .asset, .bytes].contains(type.scalar) else { throw refuse("values of this type cannot be compared") }
        default:
            break
        }
    }

    private static func typedSort(_ input: SortInput, recordType: RecordTypeSchema) throws(StorageError) -> SortDescriptor {
        let (field, type) = try fieldReference(
            fieldName: input.fieldName, systemFieldName: input.systemFieldName, recordType: recordType, declared: nil
        )
        if field.isAllTokens {
            throw StorageError(.invalidArgument, "cannot sort by '\(FieldReference.allTokensName)' (every searchable field)")
        }
        var relative: Location?
        if let relativeLocation = input.relativeLocation {
            guard case .location(let location)? = try? FieldValue(json: relativeLocation.value, as: FieldType(.location)) else {
                throw StorageError(.invalidArgument, "relativeLocation of the sort on '\(field.name)' must be a LOCATION")
            }
            relative = location
        }
        if let type {
            if type.isList { throw StorageError(.invalidArgument, "cannot sort by list field '\(field.name)'") }
            if type.scalar == .location && relative == nil {
                throw StorageError(.invalidArgument, "sorting by LOCATION field '\(field.name)' needs a relativeLocation")
            }
            if relative != nil && type.scalar != .location {
                throw StorageError(.invalidArgument, "relativeLocation applies to LOCATION fields, not '\(field.name)'")
            }
            if [.bytes, .asset].contains(type.scalar) {
                throw StorageError(.invalidArgument, "cannot sort by \(type.wireName) field '\(field.name)'")
            }
            if type.scalar == .localizedString {
                throw StorageError(.invalidArgument, "name the language to sort by, such as \(field.name).en")
            }
        }
        return SortDescriptor(field: field, ascending: input.ascending ?? true, relativeLocation: relative)
    }
}
