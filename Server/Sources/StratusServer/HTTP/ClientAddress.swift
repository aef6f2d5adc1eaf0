import StratusServices
import Hummingbird

/// The address a request comes from, as throttles count it.
enum ClientAddress {
    /// The connection's peer; behind a proxy the server is told to trust (`trustForwardedFor`), the last
    /// address of `X-Forwarded-For`, which that proxy appended.
    static func of(_ request: Request, _ context: StratusRequestContext, trustForwardedFor: Bool) -> String {
        if trustForwardedFor, let forwarded = request.headers[.xForwardedFor],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return String(last.prefix(64))
        }
        return context.peerAddress ?? "unknown"
    }
}
