import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The files that tie apps to the server's domain, so that they may use its containers' passkeys: Apple's
/// `/.well-known/apple-app-site-association` (the `webcredentials` an app's associated domains fetch) and Android's
/// `/.well-known/assetlinks.json` (Digital Asset Links). Each lists the apps of every container whose passkeys'
/// relying party ID is the host the request came to.
struct AssociatedDomains {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        router.get(".well-known/apple-app-site-association", use: appleAppSiteAssociation)
        router.get(".well-known/assetlinks.json", use: assetLinks)
    }

    /// `{"webcredentials": {"apps": ["TEAMID.com.example.Notes", …]}}`.
    @Sendable func appleAppSiteAssociation(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let apps = try await settingsServed(request).flatMap(\.passkeyAppleAppIDs)
        guard !apps.isEmpty else { throw APIError(.notFound, "no container lists Apple apps for this domain (passkeyAppleAppIDs)") }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("webcredentials")
            writer.beginObject()
            writer.array("apps", Array(Set(apps)).sorted()) { writer, app in writer.string(app) }
            writer.endObject()
        })
    }

    /// `[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", …}}]`.
    @Sendable func assetLinks(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let apps = try await settingsServed(request).flatMap(\.passkeyAndroidApps)
        guard !apps.isEmpty else { throw APIError(.notFound, "no container lists Android apps for this domain (passkeyAndroidApps)") }
        var writer = JSONWriter()
        writer.beginArray()
        for app in Array(Set(apps)).sorted(by: { $0.packageName < $1.packageName }) {
            writer.arrayElement()
            writer.beginObject()
            writer.array("relation", ["delegate_permission/common.get_login_creds", "delegate_permission/common.handle_all_urls"]) { writer, relation in
                writer.string(relation)
            }
            writer.key("target")
            writer.beginObject()
            writer.key("namespace")
            writer.string("android_app")
            writer.key("package_name")
            writer.string(app.packageName)
            writer.array("sha256_cert_fingerprints", app.sha256CertFingerprints) { writer, fingerprint in writer.string(fingerprint) }
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        return JSONResponse.make(writer)
    }

    /// The account settings of the containers whose relying party ID is the host the request came to (as its
    /// `Host` names it, or as the server's public URL does).
    private func settingsServed(_ request: Request) async throws -> [AccountSettings] {
        let baseURL = DatabaseCall.baseURL(of: request, server)
        let hosts = Set([request.head.authority.flatMap { URLComponents(string: "http://" + $0)?.host }, URLComponents(string: baseURL)?.host]
            .compactMap { $0?.lowercased() })
        return try await server.store.containers().compactMap { container in
            let party = RelyingParty(settings: container.accountSettings, containerID: container.id, baseURL: baseURL)
            return hosts.contains(party.id) ? container.accountSettings : nil
        }
    }
}
