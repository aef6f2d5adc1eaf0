/// What an authenticator needs to make a passkey, in WebAuthn's JSON form (`PublicKeyCredentialCreationOptionsJSON`):
/// a browser passes it to `PublicKeyCredential.parseCreationOptionsFromJSON`, an app reads ``challenge``,
/// ``rp`` and ``user`` into `ASAuthorizationPlatformPublicKeyCredentialProvider`. Binary values are base64url.
public struct PasskeyCreationOptions: Sendable, Hashable, Codable {
    public struct RelyingParty: Sendable, Hashable, Codable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    public struct User: Sendable, Hashable, Codable {
        /// The user handle: the bytes of the account's `userRecordName`, base64url.
        public var id: String
        public var name: String
        public var displayName: String

        public init(id: String, name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    public struct CredentialParameters: Sendable, Hashable, Codable {
        public var type: String
        /// A COSE algorithm number: -7 is ES256.
        public var alg: Int
    }

    public struct AuthenticatorSelection: Sendable, Hashable, Codable {
        public var residentKey: String
        public var requireResidentKey: Bool
        public var userVerification: String
    }

    public var challenge: String
    public var rp: RelyingParty
    public var user: User
    public var pubKeyCredParams: [CredentialParameters]
    /// Milliseconds.
    public var timeout: Int
    /// Passkeys the account has already, which the authenticator should not make again.
    public var excludeCredentials: [PasskeyDescriptor]
    public var authenticatorSelection: AuthenticatorSelection
    public var attestation: String

    public init(challenge: String, rp: RelyingParty, user: User, timeout: Int, excludeCredentials: [PasskeyDescriptor]) {
        self.challenge = challenge
        self.rp = rp
        self.user = user
        pubKeyCredParams = [CredentialParameters(type: "public-key", alg: -7)]
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        authenticatorSelection = AuthenticatorSelection(residentKey: "required", requireResidentKey: true, userVerification: "required")
        attestation = "none"
    }
}

/// A credential named in options (`PublicKeyCredentialDescriptorJSON`).
public struct PasskeyDescriptor: Sendable, Hashable, Codable {
    public var type: String
    /// The credential ID, base64url.
    public var id: String

    public init(id: String) {
        type = "public-key"
        self.id = id
    }
}

/// What an authenticator needs to sign in with a passkey (`PublicKeyCredentialRequestOptionsJSON`).
public struct PasskeyRequestOptions: Sendable, Hashable, Codable {
    public var challenge: String
    public var rpId: String
    /// Milliseconds.
    public var timeout: Int
    /// `required` for a sign-in with a passkey alone, `preferred` for a second factor.
    public var userVerification: String
    /// Empty for a sign-in with a passkey alone (the authenticator offers the user's passkeys); the account's for a
    /// second factor.
    public var allowCredentials: [PasskeyDescriptor]

    public init(challenge: String, rpId: String, timeout: Int, userVerification: String, allowCredentials: [PasskeyDescriptor]) {
        self.challenge = challenge
        self.rpId = rpId
        self.timeout = timeout
        self.userVerification = userVerification
        self.allowCredentials = allowCredentials
    }
}

/// A new passkey as the authenticator returned it (`RegistrationResponseJSON`; binary values base64url).
public struct PasskeyRegistration: Sendable, Hashable, Codable {
    public struct Response: Sendable, Hashable, Codable {
        public var clientDataJSON: String
        public var attestationObject: String

        public init(clientDataJSON: String, attestationObject: String) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
        }
    }

    /// The credential ID, base64url.
    public var id: String
    public var type: String
    public var response: Response

    public init(id: String, clientDataJSON: String, attestationObject: String) {
        self.id = id
        type = "public-key"
        response = Response(clientDataJSON: clientDataJSON, attestationObject: attestationObject)
    }
}

/// A passkey's signature as the authenticator returned it (`AuthenticationResponseJSON`; binary values base64url).
public struct PasskeyAssertion: Sendable, Hashable, Codable {
    public struct Response: Sendable, Hashable, Codable {
        public var clientDataJSON: String
        public var authenticatorData: String
        public var signature: String
        /// The user handle the passkey was made with, when the authenticator gives it.
        public var userHandle: String?

        public init(clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
        }
    }

    /// The credential ID, base64url.
    public var id: String
    public var type: String
    public var response: Response

    public init(id: String, clientDataJSON: String, authenticatorData: String, signature: String, userHandle: String?) {
        self.id = id
        type = "public-key"
        response = Response(clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature, userHandle: userHandle)
    }
}

/// The body of `passkeys/register/options`: the password, or nothing within 5 minutes of signing in, or the
/// `secondFactorToken` of a sign-in that must set up a second factor.
public struct PasskeyRegistrationOptionsRequest: Sendable, Hashable, Codable {
    public var password: String?
    public var secondFactorToken: String?

    public init(password: String? = nil, secondFactorToken: String? = nil) {
        self.password = password
        self.secondFactorToken = secondFactorToken
    }
}

/// The body of `signup/passkey/options`: the account to make, which will have a passkey and no password.
public struct PasskeySignUpOptionsRequest: Sendable, Hashable, Codable {
    public var emailAddress: String
    public var givenName: String?
    public var familyName: String?
    /// The language of the verification mail (a BCP 47 tag); else the request's `Accept-Language`.
    public var language: String?

    public init(emailAddress: String, givenName: String? = nil, familyName: String? = nil, language: String? = nil) {
        self.emailAddress = emailAddress
        self.givenName = givenName
        self.familyName = familyName
        self.language = language
    }
}

/// The body of `signin/passkey/options`: nothing for a sign-in with a passkey alone, or the `secondFactorToken` of
/// a password (or mailed code) sign-in that a passkey completes.
public struct PasskeySignInOptionsRequest: Sendable, Hashable, Codable {
    public var secondFactorToken: String?

    public init(secondFactorToken: String? = nil) {
        self.secondFactorToken = secondFactorToken
    }
}

/// The body of `passkeys/register` and `signup/passkey`: the new passkey, what to call it, and the device's name
/// for the session either may start.
public struct RegisterPasskeyRequest: Sendable, Hashable, Codable {
    public var credential: PasskeyRegistration
    public var name: String?
    public var deviceName: String?

    public init(credential: PasskeyRegistration, name: String? = nil, deviceName: String? = nil) {
        self.credential = credential
        self.name = name
        self.deviceName = deviceName
    }
}

/// The body of `signin/passkey`.
public struct PasskeySignInRequest: Sendable, Hashable, Codable {
    public var credential: PasskeyAssertion
    public var deviceName: String?

    public init(credential: PasskeyAssertion, deviceName: String? = nil) {
        self.credential = credential
        self.deviceName = deviceName
    }
}

/// One of an account's passkeys, in `GET passkeys` and the answer to `passkeys/register`.
public struct PasskeyEntry: Sendable, Hashable, Codable {
    /// base64url.
    public var credentialID: String
    public var name: String
    /// Whether it is synced to the user's other devices.
    public var backedUp: Bool
    /// Milliseconds since 1970.
    public var created: Int64
    public var lastUsed: Int64?

    public init(credentialID: String, name: String, backedUp: Bool, created: Int64, lastUsed: Int64?) {
        self.credentialID = credentialID
        self.name = name
        self.backedUp = backedUp
        self.created = created
        self.lastUsed = lastUsed
    }
}

/// The answer to `GET passkeys`, oldest first.
public struct PasskeysResponse: Sendable, Hashable, Codable {
    public var passkeys: [PasskeyEntry]

    public init(passkeys: [PasskeyEntry]) {
        self.passkeys = passkeys
    }
}

/// The answer to `passkeys/register`: the passkey, and a session when the registration finished a sign-in that
/// had to set up a second factor.
public struct RegisterPasskeyResponse: Sendable, Hashable, Codable {
    public var passkey: PasskeyEntry
    public var ckWebAuthToken: String?
    public var userRecordName: String?

    public init(passkey: PasskeyEntry, ckWebAuthToken: String? = nil, userRecordName: String? = nil) {
        self.passkey = passkey
        self.ckWebAuthToken = ckWebAuthToken
        self.userRecordName = userRecordName
    }
}

/// The body of `passkeys/delete`: which passkey, and the password unless the user signed in within 5 minutes.
public struct RemovePasskeyRequest: Sendable, Hashable, Codable {
    public var credentialID: String
    public var password: String?

    public init(credentialID: String, password: String? = nil) {
        self.credentialID = credentialID
        self.password = password
    }
}
