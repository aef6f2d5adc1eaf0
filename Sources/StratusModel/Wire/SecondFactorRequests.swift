/// The body of the second-factor steps (`signin/second-factor`, `second-factor/totp/setup|confirm|disable`,
/// `second-factor/recovery-codes`): what each needs of these.
public struct SecondFactorRequest: Sendable, Hashable, Codable {
    /// From a sign-in that answered `secondFactorRequired` or `secondFactorSetupRequired`.
    public var secondFactorToken: String?
    /// A code from the authenticator app.
    public var code: String?
    /// One of the recovery codes, instead of `code`.
    public var recoveryCode: String?
    /// The account's password, where a signed-in step asks for it.
    public var password: String?
    public var deviceName: String?

    public init(secondFactorToken: String? = nil, code: String? = nil, recoveryCode: String? = nil, password: String? = nil, deviceName: String? = nil) {
        self.secondFactorToken = secondFactorToken
        self.code = code
        self.recoveryCode = recoveryCode
        self.password = password
        self.deviceName = deviceName
    }
}

/// The answer to `second-factor/totp/setup`: the secret to put in an authenticator app, as text and as the
/// `otpauth://` URI a QR code carries.
public struct TOTPSetupResponse: Sendable, Hashable, Codable {
    /// Base32.
    public var secret: String
    public var otpauthURI: String

    public init(secret: String, otpauthURI: String) {
        self.secret = secret
        self.otpauthURI = otpauthURI
    }
}

/// The answer to `second-factor/totp/confirm` and `second-factor/recovery-codes`: recovery codes, shown this once,
/// and a session when the step signed in.
public struct RecoveryCodesResponse: Sendable, Hashable, Codable {
    public var recoveryCodes: [String]
    public var ckWebAuthToken: String?
    public var userRecordName: String?

    public init(recoveryCodes: [String], ckWebAuthToken: String? = nil, userRecordName: String? = nil) {
        self.recoveryCodes = recoveryCodes
        self.ckWebAuthToken = ckWebAuthToken
        self.userRecordName = userRecordName
    }
}
