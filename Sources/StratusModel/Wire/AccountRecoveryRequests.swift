/// The body of the steps that mail a code (`email/verify/send`, `password/reset/send`, `signin/code/send`): the
/// answer is the same whether or not the address has an account.
public struct MailCodeRequest: Sendable, Hashable, Codable {
    public var emailAddress: String
    /// The mail's language (a BCP 47 tag); else the request's `Accept-Language`.
    public var language: String?

    public init(emailAddress: String, language: String? = nil) {
        self.emailAddress = emailAddress
        self.language = language
    }
}

/// The body of the steps that redeem a mailed code (`email/verify`, `password/reset`, `signin/code`,
/// `email/change`): either the address and the code typed, or the token of the mail's link.
public struct RedeemCodeRequest: Sendable, Hashable, Codable {
    public var emailAddress: String?
    public var code: String?
    public var token: String?
    /// For `password/reset`: the new password.
    public var newPassword: String?
    /// For the steps that sign in: what the user calls this device.
    public var deviceName: String?

    public init(emailAddress: String? = nil, code: String? = nil, token: String? = nil, newPassword: String? = nil, deviceName: String? = nil) {
        self.emailAddress = emailAddress
        self.code = code
        self.token = token
        self.newPassword = newPassword
        self.deviceName = deviceName
    }
}

/// The body of `password/change`: the current password and the new one.
public struct ChangePasswordRequest: Sendable, Hashable, Codable {
    public var password: String
    public var newPassword: String

    public init(password: String, newPassword: String) {
        self.password = password
        self.newPassword = newPassword
    }
}

/// The body of `email/change/send`: the new address (a code goes to it) and the current password.
public struct ChangeEmailRequest: Sendable, Hashable, Codable {
    public var newEmailAddress: String
    /// The password; an account without one (made with a passkey) confirms by having signed in within 5 minutes.
    public var password: String?
    public var language: String?

    public init(newEmailAddress: String, password: String?, language: String? = nil) {
        self.newEmailAddress = newEmailAddress
        self.password = password
        self.language = language
    }
}

/// The signed-in user's account, as `GET auth/1/.../account` answers it.
public struct AccountResponse: Sendable, Hashable, Codable {
    public var userRecordName: String
    /// Absent for an account without an address (an anonymous one).
    public var emailAddress: String?
    public var emailVerified: Bool
    public var givenName: String?
    public var familyName: String?
    /// Milliseconds since 1970.
    public var created: Int64
    /// Whether sign-ins need a code from an authenticator app.
    public var totpEnabled: Bool?
    /// How many recovery codes are left.
    public var recoveryCodesLeft: Int?
    /// How many passkeys the account has.
    public var passkeys: Int?
    /// Whether the account has a password (one made with a passkey has none until a reset sets one).
    public var hasPassword: Bool?
    /// Whether the account is anonymous: nothing but its sessions leads to it yet.
    public var anonymous: Bool?

    public init(
        userRecordName: String, emailAddress: String?, emailVerified: Bool, givenName: String?, familyName: String?, created: Int64,
        totpEnabled: Bool? = nil, recoveryCodesLeft: Int? = nil, passkeys: Int? = nil, hasPassword: Bool? = nil, anonymous: Bool? = nil
    ) {
        self.anonymous = anonymous
        self.passkeys = passkeys
        self.hasPassword = hasPassword
        self.totpEnabled = totpEnabled
        self.recoveryCodesLeft = recoveryCodesLeft
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.created = created
    }
}

/// One of the signed-in user's sessions, in `GET auth/1/.../sessions`.
public struct SessionEntry: Sendable, Hashable, Codable {
    public var sessionID: String
    public var deviceName: String?
    /// Milliseconds since 1970.
    public var created: Int64
    public var lastUsed: Int64
    public var expires: Int64
    /// Whether this is the session the request came with.
    public var current: Bool

    public init(sessionID: String, deviceName: String?, created: Int64, lastUsed: Int64, expires: Int64, current: Bool) {
        self.sessionID = sessionID
        self.deviceName = deviceName
        self.created = created
        self.lastUsed = lastUsed
        self.expires = expires
        self.current = current
    }
}

/// The answer to `GET auth/1/.../sessions`, newest first.
public struct SessionsResponse: Sendable, Hashable, Codable {
    public var sessions: [SessionEntry]

    public init(sessions: [SessionEntry]) {
        self.sessions = sessions
    }
}

/// The body of `sessions/end`: one session, or every one but the caller's.
public struct EndSessionsRequest: Sendable, Hashable, Codable {
    public var sessionID: String?
    public var allOthers: Bool?

    public init(sessionID: String? = nil, allOthers: Bool? = nil) {
        self.sessionID = sessionID
        self.allOthers = allOthers
    }
}

/// The answer to `sessions/end`: the sessions ended.
public struct EndSessionsResponse: Sendable, Hashable, Codable {
    public var ended: [String]

    public init(ended: [String]) {
        self.ended = ended
    }
}

/// The body of `account/delete`: the deletion confirmed by the password, or by the code mailed by
/// `account/delete/send`; an empty body does within 5 minutes of signing in.
public struct DeleteAccountRequest: Sendable, Hashable, Codable {
    public var password: String?
    public var code: String?

    public init(password: String? = nil, code: String? = nil) {
        self.password = password
        self.code = code
    }
}
