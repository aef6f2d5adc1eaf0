import Foundation

/// An account's second factor as stored: a TOTP secret (sealed with a server key; the store never sees it in
/// the clear), whether it is on, the last time step whose code was used, and the keyed hashes of the recovery
/// codes left.
public struct SecondFactorState: Sendable, Hashable {
    public var sealedTOTPSecret: String?
    public var isTOTPEnabled: Bool
    public var lastTOTPStep: Int64
    public var recoveryCodeHashes: [String]

    public init(sealedTOTPSecret: String? = nil, isTOTPEnabled: Bool = false, lastTOTPStep: Int64 = 0, recoveryCodeHashes: [String] = []) {
        self.sealedTOTPSecret = sealedTOTPSecret
        self.isTOTPEnabled = isTOTPEnabled
        self.lastTOTPStep = lastTOTPStep
        self.recoveryCodeHashes = recoveryCodeHashes
    }

    /// Hashes as the `recovery_codes` column keeps them: a JSON array.
    static func encoded(_ hashes: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(hashes)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// The hashes of a `recovery_codes` column; none for text that does not parse.
    static func hashes(decoding text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}
