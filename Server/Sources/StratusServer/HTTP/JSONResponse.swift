import StratusServices
import Foundation
import Hummingbird
import StratusModel

/// Builds JSON responses with the headers CloudKit clients expect.
enum JSONResponse {
    static let contentType = "application/json; charset=UTF-8"

    /// A response whose body was written with a ``JSONWriter``.
    static func make(_ writer: JSONWriter, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    /// A response whose body is a wire value written with its writer.
    static func make(_ value: some JSONWritable, status: HTTPResponse.Status = .ok) -> Response {
        var writer = JSONWriter()
        value.write(to: &writer)
        return make(writer, status: status)
    }

    /// A response whose body is an `Encodable` value.
    static func make<Value: Encodable>(encoding value: Value, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
