import Foundation
import StratusModel
import StratusStoreTesting
import Testing

/// Mangled schema text, from a fixed seed: the parser answers a schema or a `ModelError`, never a crash.
@Suite struct SchemaFuzzTests {
    static let source = """
        DEFINE SCHEMA
            CREATE ROLE Admin;
            RECORD TYPE Message (
                "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                title      LOCALIZED STRING REQUIRED NOT EMPTY,
                isCurrent  BOOLEAN QUERYABLE UNIQUE WHERE isCurrent = TRUE,
                kind       STRING VALUES ('banner', 'alert') -- comment
                priority   INT64 RANGE 1..5, /* block */ tags LIST<STRING>,
                total      NUMBER PREFERRED AS INT64, secret ENCRYPTED BYTES,
                GRANT READ, WRITE TO "_world", GRANT CREATE TO Admin
            );
        """

    static let pieces = ["(", ")", ",", ";", "<", ">", "=", "..", "\"", "'", "/*", "--", "LIST<", "GRANT", "RECORD TYPE", "UNIQUE WHERE", "RANGE", "VALUES (", "-", ".", "9", "é", "\n", " "]

    @Test("mangled schema text never crashes the parser", arguments: [UInt64(1), 2, 3, 4])
    func mangled(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let base = Array(Self.source)
        for _ in 0..<400 {
            var characters = base
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let position = Int.random(in: 0...characters.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where position < characters.count:
                    characters.remove(at: position)
                case 1:
                    characters.insert(contentsOf: Self.pieces.randomElement(using: &rng)!, at: position)
                default:
                    characters = Array(characters.prefix(position))
                }
            }
            do {
                let schema = try SchemaLanguage.parse(String(characters))
                // Whatever parses must print back to the same schema.
                #expect(try SchemaLanguage.parse(SchemaLanguage.print(schema)) == schema)
            } catch {
                #expect(error.code == .invalidSchema)
            }
        }
    }
}
