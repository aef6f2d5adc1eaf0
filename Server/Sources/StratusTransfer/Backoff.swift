import Foundation
import StratusModel

/// Sends a request again when the server asks for a pause (`THROTTLED`, `TRY_AGAIN_LATER`, `SERVICE_UNAVAILABLE`,
/// HTTP 429 or 503) or the connection fails: after `retryAfter` seconds when the answer gives it, else after 1, 2,
/// 4 ... up to 60 seconds.
struct Backoff: Sendable {
    /// Tries before giving up.
    var attempts = 12
    /// Told of each pause: what was refused and how long the wait is.
    var report: @Sendable (String) -> Void

    /// An answer: its HTTP status and body.
    typealias Answer = (status: Int, body: Data)

    /// Runs `send` until it gets an answer that is not a request to wait.
    /// - Parameter what: names the request in reports, like "query Note".
    func run(_ what: String, _ send: () async throws -> Answer) async throws -> Answer {
        var pause: Double = 1
        for attempt in 1...attempts {
            let wait: Double
            do {
                let answer = try await send()
                guard let asked = Self.pauseAsked(answer) else { return answer }
                guard attempt < attempts else { return answer }
                wait = asked.seconds ?? pause
                report("\(what): \(asked.code); waiting \(Self.format(wait)) before trying again")
            } catch {
                guard attempt < attempts else { throw TransferError("\(what) failed: \(error.localizedDescription)") }
                wait = pause
                report("\(what): \(error.localizedDescription); waiting \(Self.format(wait)) before trying again")
            }
            try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
            pause = min(pause * 2, 60)
        }
        throw TransferError("\(what) failed after \(attempts) tries")
    }

    /// The error code and the wait an answer asks for, when it asks the client to come back later.
    static func pauseAsked(_ answer: Answer) -> (code: String, seconds: Double?)? {
        let error = try? JSONDecoder().decode(ErrorResponse.self, from: answer.body)
        let code = error?.serverErrorCode ?? ""
        let retryable = ["THROTTLED", "TRY_AGAIN_LATER", "SERVICE_UNAVAILABLE", "ZONE_BUSY"].contains(code)
        guard retryable || answer.status == 429 || answer.status == 503 else { return nil }
        return (code.isEmpty ? "HTTP \(answer.status)" : code, error?.retryAfter.map(Double.init))
    }

    private static func format(_ seconds: Double) -> String {
        seconds < 10 ? String(format: "%.1f s", seconds) : "\(Int(seconds)) s"
    }
}
