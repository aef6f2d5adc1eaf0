import ArgumentParser
import Foundation
import StratusServer

/// `stratus serve`'s options for Apple's push service, all four needed to send through it.
struct PushOptions: ParsableArguments {
    @Option(help: "The .p8 key file for Apple's push service (STRATUS_APNS_KEY_FILE).")
    var apnsKeyFile: String?

    @Option(help: "The key's id (STRATUS_APNS_KEY_ID).")
    var apnsKeyID: String?

    @Option(help: "The developer team id (STRATUS_APNS_TEAM_ID).")
    var apnsTeamID: String?

    @Option(help: "The app's bundle id, sent as apns-topic (STRATUS_APNS_TOPIC).")
    var apnsTopic: String?

    /// The configuration, or `nil` when no key file is given.
    func configuration() throws -> APNsConfiguration? {
        guard let file = apnsKeyFile ?? environmentValue("STRATUS_APNS_KEY_FILE") else { return nil }
        guard let keyID = apnsKeyID ?? environmentValue("STRATUS_APNS_KEY_ID"),
            let teamID = apnsTeamID ?? environmentValue("STRATUS_APNS_TEAM_ID"),
            let topic = apnsTopic ?? environmentValue("STRATUS_APNS_TOPIC")
        else {
            throw ValidationError("--apns-key-file needs --apns-key-id, --apns-team-id and --apns-topic")
        }
        guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the APNs key file \(file)")
        }
        return APNsConfiguration(privateKeyPEM: pem, keyID: keyID, teamID: teamID, topic: topic)
    }
}
