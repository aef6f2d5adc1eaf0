/// One token of schema text, with where it starts.
struct SchemaToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// An unquoted name or keyword.
        case word(String)
        /// A `"quoted"` name.
        case quoted(String)
        /// One of `( ) , ; < > =`, or `:` standing for the `..` of a range.
        case symbol(Character)
        /// A number, for constraint options.
        case number(String)
        /// A `'single-quoted'` text value, for constraint options.
        case text(String)
        case end
    }

    var kind: Kind
    var line: Int
    var column: Int

    /// How the token reads in an error message.
    var description: String {
        switch kind {
        case .word(let word): "'\(word)'"
        case .quoted(let name): "\"\(name)\""
        case .symbol(let symbol): symbol == ":" ? "'..'" : "'\(symbol)'"
        case .number(let number): number
        case .text(let text): "'\(text)'"
        case .end: "the end of the text"
        }
    }
}

/// Splits schema text into tokens, skipping whitespace and `//`, `--` and `/* */` comments.
enum SchemaLexer {
    static func tokens(in text: String) throws(ModelError) -> [SchemaToken] {
        let characters = Array(text)
        var tokens: [SchemaToken] = []
        var index = 0
        var line = 1
        var column = 1
        func advance() {
            if characters[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }
        func peek(_ offset: Int = 0) -> Character? {
            index + offset < characters.count ? characters[index + offset] : nil
        }
        while let character = peek() {
            let startLine = line
            let startColumn = column
            if character.isWhitespace {
                advance()
            } else if (character == "/" && peek(1) == "/") || (character == "-" && peek(1) == "-") {
                while let next = peek(), next != "\n" { advance() }
            } else if character == "/" && peek(1) == "*" {
                advance()
                advance()
                while peek() != nil && !(peek() == "*" && peek(1) == "/") { advance() }
                guard peek() != nil else {
                    throw SchemaLanguage.error(line: startLine, column: startColumn, "a /* comment is never closed")
                }
                advance()
                advance()
            } else if character == "\"" || character == "'" {
                advance()
                var value = ""
                while let next = peek(), next != character {
                    guard next != "\n" else {
                        throw SchemaLanguage.error(line: startLine, column: startColumn, "a quoted name ends at the end of its line")
                    }
                    value.append(next)
                    advance()
                }
                guard peek() == character else {
                    throw SchemaLanguage.error(line: startLine, column: startColumn, "a quoted name is never closed")
                }
                advance()
                tokens.append(SchemaToken(kind: character == "\"" ? .quoted(value) : .text(value), line: startLine, column: startColumn))
            } else if character == "." && peek(1) == "." {
                advance()
                advance()
                tokens.append(SchemaToken(kind: .symbol(":"), line: startLine, column: startColumn))
            } else if "(),;<>=".contains(character) {
                advance()
                tokens.append(SchemaToken(kind: .symbol(character), line: startLine, column: startColumn))
            } else if character.isNumber || (character == "-" && peek(1)?.isNumber == true) {
                var number = String(character)
                advance()
                while let next = peek(), next.isNumber || (next == "." && peek(1)?.isNumber == true && !number.contains(".")) {
                    number.append(next)
                    advance()
                }
                tokens.append(SchemaToken(kind: .number(number), line: startLine, column: startColumn))
            } else if character.isLetter || character == "_" {
                var word = ""
                while let next = peek(), next.isLetter || next.isNumber || next == "_" {
                    word.append(next)
                    advance()
                }
                tokens.append(SchemaToken(kind: .word(word), line: startLine, column: startColumn))
            } else {
                throw SchemaLanguage.error(line: startLine, column: startColumn, "unexpected character '\(character)'")
            }
        }
        tokens.append(SchemaToken(kind: .end, line: line, column: column))
        return tokens
    }
}
