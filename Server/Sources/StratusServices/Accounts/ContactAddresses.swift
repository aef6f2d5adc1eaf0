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

/// The one rule for an account's phone number.
package enum PhoneNumber {
    /// A phone number as accounts keep it: its digits, with a leading `+` when it had one.
    /// - Throws: ``ServiceError`` (`invalidArgument`) for something with fewer than 5 or more than 20 digits.
    package static func normalized(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.filter(\.isASCII).filter(\.isNumber)
        guard (5...20).contains(digits.count), trimmed.allSatisfy({ $0.isNumber || " +-().".contains($0) }) else {
            throw ServiceError.invalidArgument("'\(text)' is not a phone number")
        }
        return (trimmed.hasPrefix("+") ? "+" : "") + digits
    }
}
