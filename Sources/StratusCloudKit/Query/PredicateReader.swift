import Foundation

/// Foundation's predicates as the parsed form the translation takes: compound predicates by their structure on every
/// platform; on Apple's, comparisons by theirs too; on Linux, a predicate made from a format is parsed from it.
enum PredicateReader {
    static func node(of predicate: NSPredicate) throws -> PredicateNode {
        if let compound = predicate as? NSCompoundPredicate {
            let parts = try compound.subpredicates.map { part -> PredicateNode in
                guard let part = (part as AnyObject) as? NSPredicate else { throw PredicateError(description: "a compound predicate holds predicates") }
                return try node(of: part)
            }
            switch compound.compoundPredicateType {
            case .and: return .and(parts)
            case .not where parts.count == 1: return .not(parts[0])
            default: throw PredicateError(description: "CloudKit does not support OR in a query's predicate")
            }
        }
        #if canImport(ObjectiveC)
        if predicate.predicateFormat == "TRUEPREDICATE" { return .all }
        return try comparison(predicate)
        #else
        if let parsed = predicate.parsedFormat { return try parsed.get() }
        // Not made from a format here: `NSPredicate(value:)`, or a block, which CloudKit does not run either.
        guard predicate.evaluate(with: nil) else {
            throw PredicateError(description: "CloudKit runs predicates made from a format (or NSPredicate(value: true)), not blocks or FALSEPREDICATE")
        }
        return .all
        #endif
    }

    #if canImport(ObjectiveC)
    private static func comparison(_ predicate: NSPredicate) throws -> PredicateNode {
        guard let comparison = predicate as? NSComparisonPredicate else {
            throw PredicateError(description: "CloudKit does not support the predicate \(predicate.predicateFormat)")
        }
        let op: String
        switch comparison.predicateOperatorType {
        case .equalTo: op = "=="
        case .notEqualTo: op = "!="
        case .lessThan: op = "<"
        case .lessThanOrEqualTo: op = "<="
        case .greaterThan: op = ">"
        case .greaterThanOrEqualTo: op = ">="
        case .beginsWith: op = "BEGINSWITH"
        case .in: op = "IN"
        case .contains: op = "CONTAINS"
        default: throw PredicateError(description: "CloudKit does not support the predicate \(predicate.predicateFormat)")
        }
        return .comparison(try operand(comparison.leftExpression), op, try operand(comparison.rightExpression))
    }

    private static func operand(_ expression: NSExpression) throws -> PredicateNode.Operand {
        switch expression.expressionType {
        case .keyPath: return .key(expression.keyPath)
        case .constantValue:
            guard let value = expression.constantValue else { throw PredicateError(description: "CloudKit does not compare fields with nil") }
            return .value(value)
        case .evaluatedObject: return .tokensOfSelf
        case .function where expression.function == "distanceToLocation:fromLocation:":
            guard let arguments = expression.arguments, arguments.count == 2, case .key(let key) = try operand(arguments[0]),
                case .value(let location) = try operand(arguments[1])
            else { throw PredicateError(description: "distanceToLocation:fromLocation: takes a field and a location") }
            return .distance(key: key, from: location)
        default:
            throw PredicateError(description: "CloudKit does not support the expression \(expression)")
        }
    }
    #endif
}
