import Foundation
import StratusModel
import StratusStore

/// The mail an account's owner receives, the built-in English wording of each kind, and how a container's own
/// templates (``MailTemplate``) replace it.
package enum MailKind: String, CaseIterable, Sendable {
    case verifyEmail = "verify-email"
    case resetPassword = "reset-password"
    case changeEmail = "change-email"
    case signInCode = "sign-in-code"
    case deleteAccount = "delete-account"

    /// The kind of mail that carries a code of this purpose.
    package init(_ purpose: AccountCode.Purpose) {
        switch purpose {
        case .verifyEmail: self = .verifyEmail
        case .resetPassword: self = .resetPassword
        case .changeEmail: self = .changeEmail
        case .signIn: self = .signInCode
        case .deleteAccount: self = .deleteAccount
        }
    }

    /// The placeholders a template of any kind may use.
    package static let placeholders: Set<String> = ["appName", "code", "link", "email", "minutes"]

    /// The built-in English subject and text.
    package var builtIn: (subject: String, text: String) {
        switch self {
        case .verifyEmail:
            (
                "Confirm your email address for {{appName}}",
                """
                Hello,

                To confirm that {{email}} is yours, enter this code in {{appName}}:

                    {{code}}

                or open this link:

                {{link}}

                The code works once, within {{minutes}} minutes. If you did not sign up for {{appName}}, ignore this message.
                """
            )
        case .resetPassword:
            (
                "Reset your {{appName}} password",
                """
                Hello,

                Someone asked to reset the password of the {{appName}} account of {{email}}. To choose a new password, enter
                this code in {{appName}}:

                    {{code}}

                or open this link:

                {{link}}

                The code works once, within {{minutes}} minutes; a new password signs out every device. If you did not ask
                for this, ignore this message: your password stays as it is.
                """
            )
        case .changeEmail:
            (
                "Confirm your new email address for {{appName}}",
                """
                Hello,

                Your {{appName}} account is moving to this address, {{email}}. To confirm it, enter this code in {{appName}}:

                    {{code}}

                or open this link:

                {{link}}

                The code works once, within {{minutes}} minutes. If you did not ask for this, ignore this message.
                """
            )
        case .signInCode:
            (
                "Your {{appName}} sign-in code",
                """
                Hello,

                To sign in to {{appName}} as {{email}}, enter this code:

                    {{code}}

                or open this link:

                {{link}}

                The code works once, within {{minutes}} minutes. If you did not try to sign in, ignore this message.
                """
            )
        case .deleteAccount:
            (
                "Confirm the deletion of your {{appName}} account",
                """
                Hello,

                Someone asked to delete the {{appName}} account of {{email}}, with all its data. To confirm, enter this code
                in {{appName}}:

                    {{code}}

                The code works once, within {{minutes}} minutes. Deleting cannot be undone. If you did not ask for this,
                ignore this message and change your password.
                """
            )
        }
    }
}

/// Fills a template's placeholders.
package enum MailRendering {
    /// `template` with each `{{name}}` replaced by `values[name]`, HTML-escaped when `html` is set. Unknown names
    /// are left as they are (templates are checked when saved).
    package static func fill(_ template: String, _ values: [String: String], html: Bool = false) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let value = values[name] {
                result += html ? escapeHTML(value) : value
            } else {
                result += rest[open.lowerBound..<close.upperBound]
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    /// The placeholder names `template` uses.
    package static func placeholders(in template: String) -> Set<String> {
        var names: Set<String> = []
        var rest = Substring(template)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            names.insert(rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces))
            rest = rest[close.upperBound...]
        }
        return names
    }

    package static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
