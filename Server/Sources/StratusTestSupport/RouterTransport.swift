import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusAdmin

/// Admin requests through Hummingbird's test client (an in-process router, no sockets).
public struct RouterTransport: AdminTransport {
    let client: any TestClientProtocol

    public init(client: any TestClientProtocol) {
        self.client = client
    }

    public func send(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> (status: Int, body: Data) {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return try await client.execute(
            uri: path, method: HTTPRequest.Method(rawValue: method) ?? .get, headers: fields, body: body.map { ByteBuffer(bytes: $0) }
        ) { response in
            (Int(response.status.code), Data(buffer: response.body))
        }
    }
}
