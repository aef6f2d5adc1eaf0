import Foundation
@testable import stratus
import StratusStoreTesting
import StratusTestSupport
import Testing

/// docs/configuration.md lists `stratus serve`'s settings as the code defines them, so the two cannot drift.
@Suite struct SettingsDocumentationTests {
    @Test("docs/configuration.md's table is the settings' table: every flag, variable, default and meaning")
    func documentedAsDefined() throws {
        let page = try String(contentsOfFile: Repository.path("docs/configuration.md"), encoding: .utf8)
        let documented = page.split(separator: "\n").filter { $0.hasPrefix("|") }.joined(separator: "\n")
        #expect(documented == ServeSettings.markdownTable, "docs/configuration.md's table should read:\n\(ServeSettings.markdownTable)")
    }

    @Test("every default parses as its kind, and names are unique")
    func defaultsParse() async throws {
        let values = try await SettingValues(arguments: [], environment: [:])
        for setting in ServeSettings.all {
            switch setting.kind {
            case .integer: _ = try values.integer(setting)
            case .number: _ = try values.number(setting)
            case .size: _ = try values.size(setting)
            case .flag: #expect(try values.flag(setting) == false, "\(setting.flag)")
            case .text: break
            }
        }
        #expect(Set(ServeSettings.all.map(\.name)).count == ServeSettings.all.count)
    }

    @Test("a flag wins over its variable, a variable over the --config file, the file over the default; bad values and unknown names are refused")
    func layering() async throws {
        let folder = try TestFolder("stratus-settings")
        defer { folder.remove() }
        let file = folder.path + "/settings.json"
        try Data(#"{"port": 7000, "host": "0.0.0.0", "courier-wait": 2.5, "quiet": true, "max-asset-size": "2MB"}"#.utf8).write(to: URL(fileURLWithPath: file))
        let values = try await SettingValues(arguments: ["--port", "9000", "--config=\(file)"], environment: ["STRATUS_PORT": "8000", "STRATUS_HOST": "10.0.0.1"])
        #expect(try values.integer(ServeSettings.port) == 9000)
        #expect(values.text(ServeSettings.host) == "10.0.0.1")
        #expect(try values.number(ServeSettings.courierWait) == 2.5)
        #expect(try values.flag(ServeSettings.quiet))
        #expect(try values.size(ServeSettings.maxAssetSize) == 2 * 1024 * 1024)
        #expect(try values.integer(ServeSettings.passwordRounds) == 210_000)
        let fromVariable = try await SettingValues(arguments: [], environment: ["STRATUS_TRUST_FORWARDED_FOR": "1", "STRATUS_HEAD_TIMEOUT": "0.5"])
        #expect(try fromVariable.flag(ServeSettings.trustForwardedFor))
        #expect(try fromVariable.connectionLimits().requestHeadTimeout == .milliseconds(500))

        for (arguments, environment, message) in [
            (["--port", "eighty"], [String: String](), "--port (STRATUS_PORT) must be a whole number, not 'eighty'"),
            ([], ["STRATUS_MAX_ASSET_SIZE": "lots"], "--max-asset-size (STRATUS_MAX_ASSET_SIZE) must be a size"),
            (["--nope", "1"], [:], "unknown setting --nope"),
            (["--port"], [:], "--port needs a value"),
            (["--apple-keys-url", "http://keys.example.com/auth/keys"], [:], "--apple-keys-url must be an https URL (http only on loopback"),
        ] {
            do {
                let values = try await SettingValues(arguments: arguments, environment: environment)
                _ = try values.serverConfiguration(adminKey: "k")
                Issue.record("\(arguments) \(environment) was accepted")
            } catch {
                #expect("\(error)".contains(message), "\(arguments) \(environment): \(error)")
            }
        }
        let loopback = try await SettingValues(arguments: ["--apple-keys-url", "http://127.0.0.1:9000/auth/keys"], environment: [:])
        #expect(try loopback.serverConfiguration(adminKey: "k").appleKeysURL == "http://127.0.0.1:9000/auth/keys")
        try Data(#"{"prot": 1}"#.utf8).write(to: URL(fileURLWithPath: file))
        await #expect(throws: (any Error).self) { try await SettingValues(arguments: ["--config", file], environment: [:]) }
    }
}
