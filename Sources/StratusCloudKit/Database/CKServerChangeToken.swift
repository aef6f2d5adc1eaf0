import Foundation
import StratusKit

/// Where a fetch of changes left off: hand it back to get only what changed since. Archive it
/// (`NSKeyedArchiver`) to keep it across launches.
public final class CKServerChangeToken: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    let stratus: SyncToken

    init(_ token: SyncToken) {
        stratus = token
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(stratus.rawValue as NSString, forKey: "token")
    }

    public init?(coder: NSCoder) {
        guard let raw = coder.decodeObject(of: NSString.self, forKey: "token") as String? else { return nil }
        stratus = SyncToken(raw)
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKServerChangeToken)?.stratus == stratus
    }

    public override var hash: Int { stratus.hashValue }
}
