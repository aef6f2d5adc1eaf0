import Foundation

/// A predicate in CloudKit's subset of the `NSPredicate` format language, parsed: comparisons joined by `AND`,
/// with `NOT`, `TRUEPREDICATE`, `IN`, `BEGINSWITH`, `CONTAINS` and `distanceToLocation:fromLocation:`. Values
/// come from the format's `%@`, `%K`, `%d`, `%f` arguments or are written inline (strings, numbers, `{lists}`,
/// `TRUE`/`FALSE`, and `CAST(seconds, "NSDate")` as Apple's `predicateFormat` writes dates).
indirect enum PredicateNode {
    case all
    case and([PredicateNode])
    case not(PredicateNode)
    case comparison(Operand, String, Operand)

    enum Operand {
        case key(String)
        case value(Any)
        case tokensOfSelf
        case distance(key: String, from: Any)
    }
}

/// Why a predicate cannot run: its text, or a construct CloudKit does not support.
struct PredicateError: Error, CustomStringConvertible {
    let description: String
}

struct PredicateParser {
    private var tokens: [Token]
    private var position = 0
    private var arguments: [Any]

    enum Token: Equatable {
        case word(String)
        case formatArgument(Character)
        case string(String)
        case number(Double, isInteger: Bool)
        case symbol(String)
    }

    static func parse(_ format: String, arguments: [Any]) throws -> PredicateNode {
        var parser = PredicateParser(tokens: try tokenize(format), arguments: arguments)
        let node = try parser.orLevel()
        guard parser.position == parser.tokens.count else {
            throw PredicateError(description: "unexpected \(parser.tokens[parser.position]) in predicate '\(format)'")
        }
        return node
    }

    private init(tokens: [Token], arguments: [Any]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    // MARK: - Grammar

    private mutating func orLevel() throws -> PredicateNode {
        let first = try andLevel()
        if isWord("OR") || peek == .symbol("||") {
            throw PredicateError(description: "CloudKit does not support OR in a query's predicate")
        }
        return first
    }

    private mutating func andLevel() throws -> PredicateNode {
        var parts = [try unary()]
        while isWord("AND") || peek == .symbol("&&") {
            position += 1
            parts.append(try unary())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func unary() throws -> PredicateNode {
        if isWord("NOT") || peek == .symbol("!") {
            position += 1
            return .not(try unary())
        }
        if isWord("TRUEPREDICATE") {
            position += 1
            return .all
        }
        if isWord("FALSEPREDICATE") {
            throw PredicateError(description: "CloudKit does not support FALSEPREDICATE")
        }
        if peek == .symbol("(") {
            position += 1
            let inner = try orLevel()
            try expect(.symbol(")"))
            return inner
        }
        let lhs = try operand()
        let op = try comparisonOperator()
        let rhs = try operand()
        return .comparison(lhs, op, rhs)
    }

    private mutating func comparisonOperator() throws -> String {
        guard let token = next() else { throw PredicateError(description: "a comparison lacks its operator") }
        switch token {
        case .symbol("=="), .symbol("="): return "=="
        case .symbol("!="), .symbol("<>"): return "!="
        case .symbol("<"): return "<"
        case .symbol("<="), .symbol("=<"): return "<="
        case .symbol(">"): return ">"
        case .symbol(">="), .symbol("=>"): return ">="
        case .word(let word):
            let upper = word.uppercased()
            if ["IN", "BEGINSWITH", "CONTAINS"].contains(upper) { return upper }
            throw PredicateError(description: "CloudKit does not support the operator \(word)")
        default:
            throw PredicateError(description: "\(token) is not a comparison operator")
        }
    }

    private mutating func operand() throws -> PredicateNode.Operand {
        guard let token = next() else { throw PredicateError(description: "a comparison lacks a side") }
        switch token {
        case .formatArgument("@"): return .value(try argument())
        case .formatArgument("K"):
            guard let key = try argument() as? String else { throw PredicateError(description: "%K takes a field name") }
            return .key(key)
        case .formatArgument(let kind): return .value(try number(kind))
        case .string(let text): return .value(text)
        case .number(let number, let isInteger): return .value(isInteger ? NSNumber(value: Int64(number)) : NSNumber(value: number))
        case .symbol("{"): return .value(try list())
        case .word(let word):
            switch word.uppercased() {
            case "TRUE", "YES": return .value(NSNumber(value: 1 as Int64))
            case "FALSE", "NO": return .value(NSNumber(value: 0 as Int64))
            case "SELF": return .tokensOfSelf
            case "NIL", "NULL": throw PredicateError(description: "CloudKit does not compare fields with nil")
            case "CAST": return .value(try cast())
            case "DISTANCETOLOCATION:FROMLOCATION:": return try distance()
            default: return .key(word)
            }
        default:
            throw PredicateError(description: "unexpected \(token)")
        }
    }

    private mutating func distance() throws -> PredicateNode.Operand {
        try expect(.symbol("("))
        guard case .key(let key) = try operand() else { throw PredicateError(description: "distanceToLocation:fromLocation: takes a field first") }
        try expect(.symbol(","))
        guard case .value(let location) = try operand() else { throw PredicateError(description: "distanceToLocation:fromLocation: takes a location second") }
        try expect(.symbol(")"))
        return .distance(key: key, from: location)
    }

    /// `CAST(786000000.5, "NSDate")`: a date as seconds since 2001, as Apple's `predicateFormat` writes one.
    private mutating func cast() throws -> Any {
        try expect(.symbol("("))
        guard case .number(let seconds, _)? = next() else { throw PredicateError(description: "CAST takes a number") }
        try expect(.symbol(","))
        guard case .string(let type)? = next(), type == "NSDate" else { throw PredicateError(description: "CAST is supported to NSDate alone") }
        try expect(.symbol(")"))
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    private mutating func list() throws -> [Any] {
        var elements: [Any] = []
        while peek != .symbol("}") {
            guard case .value(let value) = try operand() else { throw PredicateError(description: "a list holds values") }
            elements.append(value)
            if peek == .symbol(",") { position += 1 }
        }
        position += 1
        return elements
    }

    private mutating func argument() throws -> Any {
        guard !arguments.isEmpty else { throw PredicateError(description: "the predicate names more arguments (%@, %K, %d, %f) than it was given") }
        return arguments.removeFirst()
    }

    private mutating func number(_ kind: Character) throws -> Any {
        let value = try argument()
        if let number = value as? NSNumber { return number }
        if let number = value as? Double { return NSNumber(value: kind == "f" ? number : Double(Int64(number))) }
        if let number = value as? Int { return NSNumber(value: Int64(number)) }
        throw PredicateError(description: "%\(kind) takes a number")
    }

    // MARK: - Tokens

    private var peek: Token? { position < tokens.count ? tokens[position] : nil }

    private func isWord(_ word: String) -> Bool {
        if case .word(let found)? = peek { return found.uppercased() == word }
        return false
    }

    private mutating func next() -> Token? {
        defer { position += 1 }
        return peek
    }

    private mutating func expect(_ token: Token) throws {
        guard next() == token else { throw PredicateError(description: "expected \(token)") }
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "%" {
                index += 1
                while index < characters.count, "l".contains(characters[index]) { index += 1 }
                guard index < characters.count else { throw PredicateError(description: "a lone % ends the predicate") }
                let kind = characters[index]
                guard "@Kdifu".contains(kind) else { throw PredicateError(description: "%\(kind) is not a format specifier CloudKit takes") }
                tokens.append(.formatArgument(kind == "i" || kind == "u" ? "d" : kind))
                index += 1
            } else if character == "'" || character == "\"" {
                var text = ""
                index += 1
                while index < characters.count, characters[index] != character {
                    if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                    text.append(characters[index])
                    index += 1
                }
                guard index < characters.count else { throw PredicateError(description: "a string is not closed") }
                index += 1
                tokens.append(.string(text))
            } else if character.isNumber || (character == "-" && index + 1 < characters.count && characters[index + 1].isNumber) {
                var text = String(character)
                index += 1
                while index < characters.count, characters[index].isNumber || characters[index] == "." || characters[index] == "e" {
                    text.append(characters[index])
                    index += 1
                }
                guard let number = Double(text) else { throw PredicateError(description: "\(text) is not a number") }
                tokens.append(.number(number, isInteger: !text.contains(".") && !text.contains("e")))
            } else if character.isLetter || character == "_" || character == "$" {
                var word = ""
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || "_.:$".contains(characters[index]) {
                    word.append(characters[index])
                    index += 1
                }
                tokens.append(.word(word))
            } else {
                let two = index + 1 < characters.count ? String(characters[index...index + 1]) : ""
                if ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"].contains(two) {
                    tokens.append(.symbol(two))
                    index += 2
                } else if "=<>!(){},".contains(character) {
                    tokens.append(.symbol(String(character)))
                    index += 1
                } else {
                    throw PredicateError(description: "unexpected '\(character)' in a predicate")
                }
            }
        }
        return tokens
    }
}
