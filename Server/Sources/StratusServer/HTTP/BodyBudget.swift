import StratusServices
import Synchronization

/// How many bytes of request bodies this process holds at once, read and being decoded.
///
/// One large JSON body costs several times its size while it is decoded, so a few dozen clients sending
/// large bodies together could take the server past its memory. Bodies reserve their share as they arrive
/// and until they are decoded; one that does not fit is refused with `429 THROTTLED` and `retryAfter`, and
/// the client sends it again a moment later. File uploads stream to the blob store and take none of it.
final class BodyBudget: Sendable {
    /// What a body costs while it is held and decoded, as a multiple of its size: decoding JSON of many
    /// small objects takes up to about ten times the text.
    static let decodingFactor = 10
    /// The first bytes of each body, which cost nothing from the budget: ordinary requests are small, and are
    /// never refused because a large one is being decoded.
    static let freeBytesPerBody = RequestLimits.freeBytesPerBody

    let capacity: Int
    private let used = Mutex(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Reserves `bytes` more for a body that holds `held` already, or throws `THROTTLED` when they do not fit
    /// beside what the others hold. A body alone may always have the whole budget, so that no body within the
    /// size limit is refused forever.
    func reserve(_ bytes: Int, holding held: Int = 0) throws {
        let granted = used.withLock { used in
            guard used == held || used + bytes <= capacity else { return false }
            used += bytes
            return true
        }
        guard granted else {
            throw APIError(.throttled, "the server is receiving too many large requests at once; send this one again shortly", retryAfter: 1)
        }
    }

    func release(_ bytes: Int) {
        used.withLock { $0 -= bytes }
    }
}
