import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which addresses webhooks may be sent to: not loopback, private, link-local or otherwise internal ones, unless the
/// operator allows them (`--webhooks-allow-private`), so that an endpoint cannot make the server reach what only it
/// can reach.
package enum WebhookTargets {
    /// ``refusal(of:allowPrivate:)`` on a thread of its own: resolving a name blocks, and must not hold up the
    /// threads that serve requests.
    package static func checked(_ url: String, allowPrivate: Bool) async -> String? {
        if allowPrivate { return refusal(of: url, allowPrivate: true) }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: refusal(of: url, allowPrivate: false)) }
        }
    }

    /// Why `url` may not be a webhook target, or `nil` when it may: an `http`/`https` URL whose host resolves only to
    /// public addresses (any address, with `allowPrivate`).
    package static func refusal(of url: String, allowPrivate: Bool) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return "the URL must be http or https, with a host and no credentials" }
        if allowPrivate { return nil }
        let addresses = resolve(host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        guard !addresses.isEmpty else { return "\(host) does not resolve" }
        if let inside = addresses.first(where: isInternal) {
            return "\(host) is \(inside), an internal address (the server allows those with --webhooks-allow-private)"
        }
        return nil
    }

    /// Every IPv4 and IPv6 address `host` resolves to, as text.
    package static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    /// Whether an address is loopback, private, link-local, carrier-grade NAT, unspecified or IPv6 unique-local.
    package static func isInternal(_ address: String) -> Bool {
        let text = address.lowercased()
        if text.contains(":") {
            if let mapped = text.split(separator: ":").last, text.hasPrefix("::ffff:"), mapped.contains(".") { return isInternal(String(mapped)) }
            return text == "::1" || text == "::" || text.hasPrefix("fe8") || text.hasPrefix("fe9") || text.hasPrefix("fea") || text.hasPrefix("feb")
                || text.hasPrefix("fc") || text.hasPrefix("fd")
        }
        let parts = text.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return true }
        switch (parts[0], parts[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168): return true
        case (172, 16...31), (100, 64...127): return true
        default: return parts[0] >= 224
        }
    }
}
