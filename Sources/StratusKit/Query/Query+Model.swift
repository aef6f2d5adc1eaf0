internal import StratusModel

extension Query {
    /// The `query` dictionary of `records/query` and of query subscriptions.
    var model: QueryInput {
        QueryInput(
            recordType: recordType,
            filterBy: filter.conditions.isEmpty ? nil : filter.conditions.map { condition in
                FilterInput(
                    comparator: condition.comparator,
                    fieldName: condition.field.isSystem ? nil : condition.field.name,
                    systemFieldName: condition.field.isSystem ? condition.field.name : nil,
                    fieldValue: condition.value.input, distance: condition.distance
                )
            },
            sortBy: sort.isEmpty ? nil : sort.map { descriptor in
                SortInput(
                    fieldName: descriptor.field.isSystem ? nil : descriptor.field.name,
                    systemFieldName: descriptor.field.isSystem ? descriptor.field.name : nil,
                    ascending: descriptor.ascending, relativeLocation: descriptor.relativeLocation.map { FieldValue.location($0).input }
                )
            }
        )
    }
}
