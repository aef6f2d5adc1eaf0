import StratusModel

/// What accepting a share by its URL does for a user (`docs/protocol.md#sharing`).
public enum ShareAcceptance {
    public enum Decision: Sendable, Hashable {
        /// The owner, or a participant who accepted already: nothing changes.
        case nothing
        /// An invited participant (by record name, email address or phone number) accepts as this user.
        case accept(participantID: String)
        /// Anyone may join a share with a public permission, as a public user with that permission.
        case join(SharePermission)
    }

    /// Decides an acceptance.
    /// - Throws: ``StorageError/Code/accessDenied`` when the share is neither for the user nor public.
    public static func decide(_ details: ShareDetails, for user: ShareUser) throws(StorageError) -> Decision {
        if details.ownerRecordName == user.userRecordName { return .nothing }
        if let match = details.participant(matching: user) {
            if match.acceptanceStatus == .accepted && match.userRecordName == user.userRecordName { return .nothing }
            return .accept(participantID: match.participantID)
        }
        guard details.publicPermission != .none else {
            throw StorageError(.accessDenied, "this share is not for you; ask its owner to add you")
        }
        return .join(details.publicPermission)
    }

    /// The refusal for a short GUID no live share has.
    public static func unknownLink(_ shortGUID: String) -> StorageError {
        StorageError(.notFound, "no share has the short GUID \(shortGUID)")
    }
}
