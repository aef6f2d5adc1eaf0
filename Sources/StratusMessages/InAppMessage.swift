import Foundation
import StratusKit

/// A message an app's developers publish to its users without an app release: an announcement, a link, a
/// request to update, an offer (the in-app "communication" many apps keep in CloudKit's public database).
///
/// Every text a user reads is a ``LocalizedString``; ``localized(for:)`` picks the user's language.
///
/// ```swift
/// let message = InAppMessage(
///     id: "spring-sale", kind: .inAppPurchase(productID: "pro.yearly"),
///     title: ["en": "Spring sale", "es": "Rebajas de primavera"], content: ["en": "Pro is 50% off.", "es": "Pro, a mitad de precio."]
/// )
/// try await MessagePublisher(database: adminContainer.publicCloudDatabase).publish(message)
/// ```
public struct InAppMessage: Sendable, Hashable, Identifiable {
    /// What the message asks of the user, which decides its buttons.
    public enum Kind: Sendable, Hashable {
        /// Something to read; an okay button.
        case information
        /// A web page: an action button opens it, and a cancel button.
        case website(URL)
        /// An email address to write to: an action button, and a cancel button.
        case email(address: String)
        /// A new app version: update and cancel buttons, or "already have it" when the installed version is current.
        case newVersion(version: String, storeURL: URL?)
        /// An in-app purchase: subscribe and cancel buttons, or okay when the user is subscribed already.
        case inAppPurchase(productID: String)
    }

    /// Button titles; the kit's English defaults apply where a message has none.
    public struct ButtonTitles: Sendable, Hashable {
        public var okay: LocalizedString?
        public var action: LocalizedString?
        public var cancel: LocalizedString?
        public var update: LocalizedString?
        public var alreadyHave: LocalizedString?
        public var subscribe: LocalizedString?

        public init(
            okay: LocalizedString? = nil, action: LocalizedString? = nil, cancel: LocalizedString? = nil, update: LocalizedString? = nil,
            alreadyHave: LocalizedString? = nil, subscribe: LocalizedString? = nil
        ) {
            self.okay = okay
            self.action = action
            self.cancel = cancel
            self.update = update
            self.alreadyHave = alreadyHave
            self.subscribe = subscribe
        }
    }

    /// The message's identifier: a user sees each identifier once.
    public var id: String
    /// The version of the message format; apps ignore messages newer than they understand.
    public var schemaVersion: Int
    public var isCurrent: Bool
    public var kind: Kind
    public var title: LocalizedString
    public var content: LocalizedString
    public var image: Asset?
    public var imageAccessibilityLabel: LocalizedString?
    public var buttonTitles: ButtonTitles

    public init(
        id: String, schemaVersion: Int = 1, isCurrent: Bool = false, kind: Kind, title: LocalizedString, content: LocalizedString,
        image: Asset? = nil, imageAccessibilityLabel: LocalizedString? = nil, buttonTitles: ButtonTitles = ButtonTitles()
    ) {
        self.id = id
        self.schemaVersion = schemaVersion
        self.isCurrent = isCurrent
        self.kind = kind
        self.title = title
        self.content = content
        self.image = image
        self.imageAccessibilityLabel = imageAccessibilityLabel
        self.buttonTitles = buttonTitles
    }
}

/// What the app knows about its user, to choose a message's buttons and language.
public struct MessageContext: Sendable, Hashable {
    /// The app's installed version (`CFBundleShortVersionString`).
    public var installedVersion: String
    /// Whether the user already has the subscription an in-app purchase message offers.
    public var isSubscribed: Bool
    /// The user's preferred languages, most preferred first (`Locale.preferredLanguages`).
    public var languages: [String]

    public init(installedVersion: String, isSubscribed: Bool = false, languages: [String] = Locale.preferredLanguages) {
        self.installedVersion = installedVersion
        self.isSubscribed = isSubscribed
        self.languages = languages
    }
}

/// One button of a message, in the user's language.
public struct MessageButton: Sendable, Hashable {
    /// What tapping it does.
    public enum Action: Sendable, Hashable {
        case dismiss
        case openURL(URL)
        case composeEmail(to: String)
        case update(storeURL: URL?)
        case purchase(productID: String)
    }

    public var title: String
    public var action: Action
    /// Whether this is the dismissing button (shown with the cancel style).
    public var isCancel: Bool
}

/// A message with every text in one language, ready to show.
public struct LocalizedMessage: Sendable, Hashable {
    public var id: String
    public var title: String
    public var content: String
    public var image: Asset?
    public var imageAccessibilityLabel: String?
    public var buttons: [MessageButton]
}

extension InAppMessage {
    /// The message in the user's language (falling back to English, then to any), with the buttons its kind
    /// and the user's situation call for.
    public func localized(for context: MessageContext) -> LocalizedMessage {
        let languages = context.languages
        func text(_ string: LocalizedString?, _ fallback: String) -> String {
            string?.text(for: languages) ?? fallback
        }
        let titles = buttonTitles
        let cancel = MessageButton(title: text(titles.cancel, "Cancel"), action: .dismiss, isCancel: true)
        let okay = MessageButton(title: text(titles.okay, "OK"), action: .dismiss, isCancel: true)
        let buttons: [MessageButton] = switch kind {
        case .information:
            [okay]
        case .website(let url):
            [MessageButton(title: text(titles.action, "Open"), action: .openURL(url), isCancel: false), cancel]
        case .email(let address):
            [MessageButton(title: text(titles.action, "Write to Us"), action: .composeEmail(to: address), isCancel: false), cancel]
        case .newVersion(let version, let storeURL):
            if AppVersion(context.installedVersion) >= AppVersion(version) {
                [MessageButton(title: text(titles.alreadyHave, "I Already Have It"), action: .dismiss, isCancel: true)]
            } else {
                [MessageButton(title: text(titles.update, "Update"), action: .update(storeURL: storeURL), isCancel: false), cancel]
            }
        case .inAppPurchase(let productID):
            if context.isSubscribed {
                [okay]
            } else {
                [MessageButton(title: text(titles.subscribe, "Subscribe"), action: .purchase(productID: productID), isCancel: false), cancel]
            }
        }
        return LocalizedMessage(
            id: id, title: text(title, ""), content: text(content, ""), image: image,
            imageAccessibilityLabel: imageAccessibilityLabel?.text(for: languages), buttons: buttons
        )
    }
}
