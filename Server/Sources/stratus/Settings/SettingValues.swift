import ArgumentParser
import Configuration
import Foundation
import StratusModel
import SystemPackage

/// The values of `stratus serve`'s settings (``ServeSettings``), read through one `ConfigReader`: the command line
/// first, then the environment (`STRATUS_…`), then the `--config` file; a setting none of them gives takes its
/// default.
///
/// ```swift
/// let values = try await SettingValues(arguments: ["--port", "9090"])
/// let port = try values.integer(ServeSettings.port)   // 9090, else STRATUS_PORT, else the file's "port", else 8080
/// ```
struct SettingValues {
    private let reader: ConfigReader

    /// - Parameters:
    ///   - arguments: the settings given on the command line: `--name value`, `--name=value`, or `--name` for a flag.
    ///   - environment: the process's environment variables.
    /// - Throws: `ValidationError` naming an unknown setting, a flag's missing value, or a configuration file that
    ///   cannot be read or names unknown settings.
    init(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let secrets = Set(ServeSettings.all.filter(\.isSecret).map(\.environmentVariable))
        let variables = KeyMappingProvider(
            upstream: EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty }, secretsSpecifier: .specific(secrets))
        ) { key in key.prepending(["stratus"]) }
        var providers: [any ConfigProvider] = [InMemoryProvider(name: "command line", values: try Self.parse(arguments)), variables]
        if let file = ConfigReader(providers: providers).string(forKey: ConfigKey(ServeSettings.config.name)) {
            providers.append(try await Self.fileProvider(file))
        }
        reader = ConfigReader(providers: providers)
    }

    /// The setting's text, or its default.
    func text(_ setting: Setting) -> String? {
        let key = ConfigKey(setting.name)
        let given = reader.string(forKey: key, isSecret: setting.isSecret)
            ?? reader.int(forKey: key).map(String.init) ?? reader.double(forKey: key).map { String($0) } ?? reader.bool(forKey: key).map(String.init)
        return given ?? setting.defaultValue
    }

    /// A whole number, or the default.
    /// - Throws: `ValidationError` naming the setting when the value is not a whole number.
    func integer(_ setting: Setting) throws -> Int {
        try convert(setting, "a whole number") { Int($0) }
    }

    /// A number, or the default.
    func number(_ setting: Setting) throws -> Double {
        try convert(setting, "a number") { Double($0) }
    }

    /// A size in bytes (`50MB`), or the default.
    func size(_ setting: Setting) throws -> Int64 {
        try convert(setting, "a size such as 50MB, 512KB or 2GB") { text in Setting.parseSize(text).flatMap { $0 > 0 ? $0 : nil } }
    }

    /// Whether a flag is on.
    func flag(_ setting: Setting) throws -> Bool {
        try convert(setting, "on or off (1, true, yes; 0, false, no)") { text in
            switch text.lowercased() {
            case "1", "true", "yes", "on": true
            case "0", "false", "no", "off": false
            default: nil
            }
        }
    }

    private func convert<Value>(_ setting: Setting, _ expected: String, _ parse: (String) -> Value?) throws -> Value {
        guard let text = text(setting) else { throw ValidationError("\(setting.flag) (\(setting.environmentVariable)) has no default; give it") }
        guard let value = parse(text.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("\(setting.flag) (\(setting.environmentVariable)) must be \(expected), not '\(text)'")
        }
        return value
    }

    /// The settings given on the command line, by name.
    static func parse(_ arguments: [String]) throws -> [AbsoluteConfigKey: ConfigValue] {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw ValidationError("unexpected argument '\(argument)': settings are given as --name value")
            }
            let named = argument.dropFirst(2)
            let name = String(named.prefix { $0 != "=" })
            guard let setting = ServeSettings.all.first(where: { $0.name == name }) else {
                throw ValidationError("unknown setting --\(name); stratus serve --help lists them")
            }
            var value: String
            if named.contains("=") {
                value = String(named.drop { $0 != "=" }.dropFirst())
            } else if setting.kind == .flag {
                value = "true"
            } else {
                guard let next = remaining.popFirst(), !next.hasPrefix("--") else { throw ValidationError("--\(name) needs a value") }
                value = next
            }
            values[AbsoluteConfigKey([name])] = ConfigValue(.string(value), isSecret: setting.isSecret)
        }
        return values
    }

    /// The settings of a JSON configuration file: an object keyed by setting names.
    private static func fileProvider(_ path: String) async throws -> any ConfigProvider {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("--config: cannot read \(path)") }
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: data) else {
            throw ValidationError("--config: \(path) is not a JSON object of settings")
        }
        let unknown = object.keys.filter { key in !ServeSettings.all.contains { $0.name == key } || key == ServeSettings.config.name }.sorted()
        guard unknown.isEmpty else { throw ValidationError("--config: \(path) names unknown settings: \(unknown.joined(separator: ", "))") }
        do {
            return try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw ValidationError("--config: \(path) cannot be read: \(error)")
        }
    }
}
