import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: Foundation's `URLSession` (FoundationNetworking on Linux).
public struct URLSessionTransport: Transport {
    private let session: URLSession

    /// - Parameter session: the session for ordinary requests; streams get a session of their own.
    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        do {
            let (data, response) = try await session.data(for: Self.urlRequest(request))
            return TransportResponse(status: (response as? HTTPURLResponse)?.statusCode ?? 0, headers: Self.headers(of: response), body: data)
        } catch let error as URLError {
            throw StratusError(.networkFailure, error.localizedDescription)
        }
    }

    public func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let delegate = StreamDelegate(continuation: continuation)
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 3_600
        configuration.timeoutIntervalForResource = 24 * 3_600
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        var urlRequest = Self.urlRequest(request)
        urlRequest.timeoutInterval = 3_600
        let task = session.dataTask(with: urlRequest)
        continuation.onTermination = { _ in
            task.cancel()
            session.invalidateAndCancel()
        }
        task.resume()
        return stream
    }

    static func urlRequest(_ request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        return urlRequest
    }

    static func headers(of response: URLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return headers
    }
}

/// Hands a streaming response's bytes to an `AsyncThrowingStream` as they arrive.
private final class StreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            continuation.finish(throwing: StratusError(StratusError.Code(streamStatus: status), "the stream answered \(status)"))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error, (error as? URLError)?.code != .cancelled {
            continuation.finish(throwing: StratusError(.networkFailure, error.localizedDescription))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}

extension StratusError.Code {
    /// The code for a stream that answered `status` instead of 200.
    init(streamStatus status: Int) {
        self = switch status {
        case 401, 421: .notAuthenticated
        case 403: .permissionFailure
        case 404: .unknownItem
        case 429: .requestRateLimited
        case 503: .serviceUnavailable
        default: .serverRejectedRequest
        }
    }
}
