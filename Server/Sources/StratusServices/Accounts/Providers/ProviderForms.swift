import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// Form posts to sign-in providers' token endpoints (Apple's `/auth/token` and `/auth/revoke`, OpenID Connect's
/// `token_endpoint`): the form, a 10-second deadline, and the JSON object answered.
package enum ProviderForms {
    /// Posts `fields` as `application/x-www-form-urlencoded` and answers the status and the JSON object answered
    /// (empty when the answer is not one).
    /// - Throws: `TRY_AGAIN_LATER` naming `what` when the endpoint cannot be reached.
    package static func post(
        _ url: String, fields: [String: String], authorization: String? = nil, client: HTTPClient, what: String
    ) async throws -> (status: UInt, answer: [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        let form = fields.sorted { $0.key < $1.key }.map { "\(escaped($0.key))=\(escaped($0.value))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 256 * 1024)
            let answer = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
            return (response.status.code, answer)
        } catch {
            throw ServiceError(.unavailable, "\(what) could not be reached: \(error)")
        }
    }

    /// `text` escaped for a form (and for HTTP Basic credentials, as OAuth 2.0 asks).
    package static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
