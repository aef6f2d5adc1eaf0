import StratusStore
import Synchronization
import Testing

/// A read of several statements runs them in order, each written from what the ones before read, and a read of
/// no statement runs none.
struct SQLReadTests {
    /// Answers each statement with one row holding its text's length, and keeps the texts it was asked.
    final class Recorder: SQLReading {
        let asked = Mutex<[String]>([])

        func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
            let (sql, _) = statement.rendered(in: QueryStatementTests.TestDialect(numbered: false))
            asked.withLock { $0.append(sql) }
            return [SQLRow(["length": .integer(Int64(sql.count))])]
        }
    }

    @Test func statementsRunInOrderEachWrittenFromTheValueBefore() async throws {
        let recorder = Recorder()
        let read = SQLRead("SELECT 1") { rows in try rows[0].integer("length") }
            .then { length in SQLRead("SELECT \(raw: "\(length)") AS previous") { rows in try rows[0].integer("length") + 1000 } }
            .map { "total \($0)" }
        #expect(try await recorder.read(read) == "total 1020")
        #expect(recorder.asked.withLock { $0 } == ["SELECT 1", "SELECT 8 AS previous"])
    }

    @Test func aReadOfNoStatementRunsNone() async throws {
        let recorder = Recorder()
        let read = SQLRead(value: 7).then { value in SQLRead(value: value * 6) }.map { $0 + 0 }
        #expect(try await recorder.read(read) == 42)
        #expect(recorder.asked.withLock { $0 }.isEmpty)
    }

    @Test func anErrorStopsTheReadBeforeTheNextStatement() async throws {
        let recorder = Recorder()
        let read = SQLRead("SELECT 1") { _ in 1 }
            .then { _ -> SQLRead<Int> in throw StorageError(.zoneNotFound, "refused between statements") }
            .then { _ in SQLRead("SELECT 2") { _ in 2 } }
        await #expect { try await recorder.read(read) } throws: { ($0 as? StorageError)?.code == .zoneNotFound }
        #expect(recorder.asked.withLock { $0 } == ["SELECT 1"])
        // The synchronous runner (a backend's own connection) runs the same read the same way.
        var asked: [String] = []
        #expect(throws: StorageError.self) {
            try read.run { statement in
                asked.append(statement.rendered(in: QueryStatementTests.TestDialect(numbered: false)).sql)
                return []
            }
        }
        #expect(asked == ["SELECT 1"])
    }
}
