/// The body of `auth/1/.../signup` and `signin`.
public struct SignInRequest: Sendable, Hashable, Codable {
    public var emailAddress: String
    public var password: String
    public var givenName: String?
    public var familyName: String?
    /// Sign-up only: lets discoverable users be found by phone number.
    public var phoneNumber: String?
    /// What the user calls this device ("Alice's iPhone"), shown in their list of sessions.
    public var deviceName: String?
    /// Sign-up only: the language of the verification mail (a BCP 47 tag); else the request's `Accept-Language`.
    public var language: String?

    public init(
        emailAddress: String, password: String, givenName: String? = nil, familyName: String? = nil, phoneNumber: String? = nil,
        deviceName: String? = nil, language: String? = nil
    ) {
        self.emailAddress = emailAddress
        self.password = password
        self.givenName = givenName
        self.familyName = familyName
        self.phoneNumber = phoneNumber
        self.deviceName = deviceName
        self.language = language
    }
}

/// The body of `auth/1/.../signup/anonymous`.
public struct AnonymousSignUpRequest: Sendable, Hashable, Codable {
    public var deviceName: String?

    public init(deviceName: String? = nil) {
        self.deviceName = deviceName
    }
}

/// The body of `auth/1/.../account/attach/password`: the address and password an anonymous account gets.
public struct AttachPasswordRequest: Sendable, Hashable, Codable {
    public var emailAddress: String
    public var password: String
    /// The language of the verification mail (a BCP 47 tag); else the request's `Accept-Language`.
    public var language: String?

    public init(emailAddress: String, password: String, language: String? = nil) {
        self.emailAddress = emailAddress
        self.password = password
        self.language = language
    }
}

/// The body of `auth/1/.../discoverability`: whether other users may find the caller.
public struct DiscoverabilityRequest: Sendable, Hashable, Codable {
    public var discoverable: Bool

    public init(discoverable: Bool) {
        self.discoverable = discoverable
    }
}

/// What `users/discover` looks users up by; one of the keys is set.
public struct UserLookupInfo: Sendable, Hashable, Codable {
    public var emailAddress: String?
    public var phoneNumber: String?
    public var userRecordName: String?

    public init(emailAddress: String? = nil, phoneNumber: String? = nil, userRecordName: String? = nil) {
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.userRecordName = userRecordName
    }
}

/// The `users/discover` request body.
public struct DiscoverUsersRequest: Sendable, Hashable, Codable {
    public var lookupInfos: [UserLookupInfo]

    public init(lookupInfos: [UserLookupInfo]) {
        self.lookupInfos = lookupInfos
    }
}

/// The body of the older `users/lookup/email` and `users/lookup/id`.
public struct LookupUsersRequest: Sendable, Hashable, Decodable {
    public var users: [UserLookupInfo]
}

/// The answer to sign-up, sign-in and the steps that sign in (a code, a reset, a verification).
public struct SignInResponse: Sendable, Hashable, Codable {
    /// The new session's token; absent after a sign-up whose address must be verified before anyone signs in.
    public var ckWebAuthToken: String?
    public var userRecordName: String
    /// Whether the account's address is verified.
    public var emailVerified: Bool?
    /// Whether the container requires a verified address before sign-in (and sent a code to it).
    public var emailVerificationRequired: Bool?
    /// Whether the password (or mailed code) was right and a second factor must follow (`signin/second-factor`).
    public var secondFactorRequired: Bool?
    /// Whether the container requires a second factor the account has not set up: `second-factor/totp/setup`
    /// and `confirm` with ``secondFactorToken`` set it up and sign in.
    public var secondFactorSetupRequired: Bool?
    /// Proof of the first factor for the steps above, valid 5 minutes.
    public var secondFactorToken: String?
    /// The second factors the account can use: `totp` (with `recoveryCode`), `passkey` (`signin/passkey/options`
    /// with the token).
    public var secondFactorMethods: [String]?
    /// Whether the account is anonymous (`signup/anonymous`): its session is its only way in until something is
    /// attached to it.
    public var anonymous: Bool?

    public init(
        ckWebAuthToken: String?, userRecordName: String, emailVerified: Bool? = nil, emailVerificationRequired: Bool? = nil,
        secondFactorRequired: Bool? = nil, secondFactorSetupRequired: Bool? = nil, secondFactorToken: String? = nil,
        secondFactorMethods: [String]? = nil, anonymous: Bool? = nil
    ) {
        self.anonymous = anonymous
        self.secondFactorMethods = secondFactorMethods
        self.ckWebAuthToken = ckWebAuthToken
        self.userRecordName = userRecordName
        self.emailVerified = emailVerified
        self.emailVerificationRequired = emailVerificationRequired
        self.secondFactorRequired = secondFactorRequired
        self.secondFactorSetupRequired = secondFactorSetupRequired
        self.secondFactorToken = secondFactorToken
    }
}

/// The body of `POST /admin/1/containers`.
public struct CreateContainerRequest: Sendable, Hashable, Codable {
    public var containerID: String

    public init(containerID: String) {
        self.containerID = containerID
    }
}

/// The answer to creating a container.
public struct CreateContainerResponse: Sendable, Hashable, Codable {
    public var containerID: String
    public var apiToken: String

    public init(containerID: String, apiToken: String) {
        self.containerID = containerID
        self.apiToken = apiToken
    }
}
