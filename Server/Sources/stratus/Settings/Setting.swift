import Foundation
import StratusStore

/// One setting of `stratus serve`, written once: its name (the flag `--name`, the variable `STRATUS_NAME`, the key
/// `name` of a configuration file), the kind of value it takes, its default and what it does. ``ServeSettings``
/// lists them; `stratus serve --help` and docs/configuration.md show the same list.
struct Setting: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Any text.
        case text
        /// A whole number.
        case integer
        /// A number, such as seconds with a fraction.
        case number
        /// A size in bytes, such as `50MB` (units are powers of 1024).
        case size
        /// On or off: a flag without a value on the command line; `1`, `true` or `yes` in a variable or file.
        case flag
    }

    let name: String
    let kind: Kind
    /// The default as the documentation writes it; `nil` when there is none, or when ``computedDefault`` says what
    /// happens instead.
    let defaultValue: String?
    /// What happens when the setting is not given, for settings whose default is not a value ("generated").
    let computedDefault: String?
    /// Whether the value is a secret, kept out of logs.
    let isSecret: Bool
    /// What the setting does, one line.
    let meaning: String

    init(_ name: String, _ kind: Kind, default defaultValue: String? = nil, otherwise computedDefault: String? = nil, secret: Bool = false, _ meaning: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.computedDefault = computedDefault
        self.isSecret = secret
        self.meaning = meaning
    }

    /// The command-line flag.
    var flag: String { "--" + name }

    /// The environment variable.
    var environmentVariable: String { "STRATUS_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The default as `--help` and the documentation show it.
    var defaultDescription: String {
        defaultValue.map { $0.isEmpty ? "none" : $0 } ?? computedDefault ?? "none"
    }
}

extension Setting {
    /// `bytes` as a size setting writes it: `50MB`, `1GB`, `512KB`, or a plain number of bytes.
    static func sizeText(_ bytes: Int64) -> String {
        ByteSize.text(bytes)
    }

    /// A size as a size setting takes it: `50MB`, `512KB`, `2GB` or a plain number of bytes; units are powers of 1024.
    static func parseSize(_ text: String) -> Int64? {
        ByteSize.parse(text)
    }

    /// A number of seconds as a number setting writes it: `20`, or `0.5`.
    static func secondsText(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? String(Int64(seconds)) : String(seconds)
    }
}
