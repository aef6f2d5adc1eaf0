/// The body of `auth/1/.../signup` and `signin`.
public struct SignInRequest: Sendable, Hashable, Codable {
    public var emailAddress: String
    public var password: String
    public var givenName: String?
    public var familyName: String?

    public init(emailAddress: String, password: String, givenName: String? = nil, familyName: String? = nil) {
        self.emailAddress = emailAddress
        self.password = password
        self.givenName = givenName
        self.familyName = familyName
    }
}

/// The answer to sign-up and sign-in.
public struct SignInResponse: Sendable, Hashable, Codable {
    public var ckWebAuthToken: String
    public var userRecordName: String

    public init(ckWebAuthToken: String, userRecordName: String) {
        self.ckWebAuthToken = ckWebAuthToken
        self.userRecordName = userRecordName
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
