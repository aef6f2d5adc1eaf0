import Foundation

/// The one rule for an account's email address.
package enum EmailAddress {
    /// `address` trimmed and lowercased, the form accounts are stored and looked up by.
    /// - Throws: ``ServiceError`` (`invalidArgument`) when it is not an address.
    package static func normalized(_ address: String) throws -> String {
        let email = address.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.utf8.count <= 254,
            !email.contains(where: \.isWhitespace)
        else {
            throw ServiceError.invalidArgument("emailAddress is not a valid email address")
        }
        return email
    }
}
