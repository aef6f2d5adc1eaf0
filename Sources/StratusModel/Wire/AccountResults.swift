/// A person's name as user identities carry it (`docs/protocol.md#users`).
public struct NameComponents: Sendable, Hashable, Decodable, JSONWritable {
    public var givenName: String?
    public var familyName: String?

    public init(givenName: String? = nil, familyName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("givenName", givenName)
        writer.member("familyName", familyName)
        writer.endObject()
    }
}

extension UserLookupInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("emailAddress", emailAddress)
        writer.member("phoneNumber", phoneNumber)
        writer.member("userRecordName", userRecordName)
        writer.endObject()
    }
}

/// A user as other users see them: `{userRecordName, nameComponents?, lookupInfo?}` (`docs/protocol.md#users`).
public struct UserIdentityEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var userRecordName: String
    public var nameComponents: NameComponents?
    /// What found the user (`users/discover`), or what the user is known by (`users/caller`).
    public var lookupInfo: UserLookupInfo?

    public init(userRecordName: String, nameComponents: NameComponents? = nil, lookupInfo: UserLookupInfo? = nil) {
        self.userRecordName = userRecordName
        self.nameComponents = nameComponents
        self.lookupInfo = lookupInfo
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(to: &writer)
        writer.endObject()
    }

    /// The identity's keys, inside an object the caller opened.
    func writeMembers(to writer: inout JSONWriter) {
        writer.member("lookupInfo", lookupInfo)
        writer.member("nameComponents", nameComponents)
        writer.member("userRecordName", userRecordName)
    }
}

/// The answer of `users/discover`: `{users}`, the discoverable users among those looked up.
public struct UsersResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var users: [UserIdentityEntry]

    public init(users: [UserIdentityEntry]) {
        self.users = users
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("users", users) { writer, user in user.write(to: &writer) }
        writer.endObject()
    }
}

/// The answer of `users/caller`: the caller's identity both as `users: [identity]` (the reference) and flat at the
/// top level (what some clients read).
public struct CallerResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var identity: UserIdentityEntry

    public init(identity: UserIdentityEntry) {
        self.identity = identity
    }

    private enum Key: String, CodingKey {
        case users
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let first = try container.decodeIfPresent([UserIdentityEntry].self, forKey: .users)?.first {
            identity = first
        } else {
            identity = try UserIdentityEntry(from: decoder)
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        identity.writeMembers(to: &writer)
        writer.array("users", [identity]) { writer, user in user.write(to: &writer) }
        writer.endObject()
    }
}

/// The answer of `auth/1/.../discoverability`: whether other users may now find the caller.
public struct DiscoverabilityResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var discoverable: Bool
    public var userRecordName: String

    public init(discoverable: Bool, userRecordName: String) {
        self.discoverable = discoverable
        self.userRecordName = userRecordName
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("discoverable", discoverable)
        writer.member("userRecordName", userRecordName)
        writer.endObject()
    }
}
