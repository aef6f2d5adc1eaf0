import Foundation
import Logging
import Testing
@testable import StratusServer
import StratusServices

@Suite struct LoggingTests {
    @Test("durations are written as milliseconds with three decimals", arguments: [
        (Int64(0), "0.000"), (7, "0.007"), (1_234, "1.234"), (12_345_678, "12345.678"),
    ])
    func milliseconds(_ micros: Int64, _ expected: String) {
        #expect(RequestLogMiddleware.milliseconds(micros) == expected)
    }

    @Test("timestamps are UTC ISO 8601 with milliseconds")
    func timestamps() {
        #expect(BufferedLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(BufferedLogHandler.timestamp(Date(timeIntervalSince1970: 1_795_314_368.353)) == "2026-11-22T02:26:08.353Z")
        #expect(BufferedLogHandler.timestamp(Date(timeIntervalSince1970: 951_782_400.5)) == "2000-02-29T00:00:00.500Z")
    }
}
