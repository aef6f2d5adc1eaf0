import Foundation

/// Where the server sends secrets (client secrets, refresh tokens, API tokens): only over `https`, or plain `http`
/// to this machine (tests, a provider run beside the server).
public enum SecureEndpoint {
    /// The hosts plain `http` may reach.
    public static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "::1", "[::1]"]

    /// Whether `text` is an `https` URL, or an `http` one on loopback, with a host and without a query or fragment.
    public static func isAllowed(_ text: String) -> Bool {
        guard let url = URLComponents(string: text), let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil else { return false }
        return url.scheme == "https" || (url.scheme == "http" && loopbackHosts.contains(host))
    }
}
