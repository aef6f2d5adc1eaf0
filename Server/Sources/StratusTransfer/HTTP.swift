import Foundation
import StratusModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request with `URLSession`: its status and body.
enum HTTP {
    static func send(_ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:], timeout: TimeInterval = 300) async throws -> Backoff.Answer {
        guard let target = URL(string: url) else { throw TransferError("not a URL: \(url)") }
        var request = URLRequest(url: target, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The refusal an answer carries, for messages: `CODE: reason`, or the status and the start of the body.
    static func describe(_ answer: Backoff.Answer) -> String {
        if let error = try? JSONDecoder().decode(ErrorResponse.self, from: answer.body) {
            return "\(error.serverErrorCode): \(error.reason)"
        }
        return "HTTP \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))"
    }
}
