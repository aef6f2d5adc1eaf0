import StratusModel
import StratusStore

/// Refuses requests over a container's rates (`429 THROTTLED` with `retryAfter`): per signed-in user, per
/// server-to-server key and per client address, each in requests per minute (``Quotas``).
package struct RequestThrottle: Sendable {
    /// Who a rate counts.
    package enum Subject: Sendable {
        case user(String)
        case serverKey(String)
        case address(String)
    }

    package let book: QuotaBook
    package let rates: RequestRates

    /// Counts a request of `subject` to `containerID` (`nil` for requests to no container, held to the defaults).
    /// - Throws: `THROTTLED` (429) with the seconds to wait, when `subject` is at its rate.
    package func admit(_ subject: Subject, containerID: String?) async throws {
        let quotas = if let containerID { try await book.quotas(of: containerID) } else { try await book.stored()[Quotas.defaultsKey] ?? Quotas() }
        let scope = containerID ?? Quotas.defaultsKey
        let (limit, key, who): (Int64?, String, String) = switch subject {
        case .user(let user): (Quotas.limit(quotas.userRequestsPerMinute), "user|\(scope)|\(user)", "this user")
        case .serverKey(let id): (Quotas.limit(quotas.keyRequestsPerMinute), "key|\(scope)|\(id)", "this server-to-server key")
        case .address(let address): (Quotas.limit(quotas.addressRequestsPerMinute), "address|\(scope)|\(address)", "this address")
        }
        guard let limit, let wait = try await rates.admit(key, limit: limit) else { return }
        throw ServiceError(.throttled, "\(who) sent more than \(limit) requests in a minute; try again in \(wait) s", retryAfter: wait)
    }

    package init(book: QuotaBook, rates: RequestRates) {
        self.book = book
        self.rates = rates
    }
}
