import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import StratusModel
import StratusStore
import Synchronization

/// Sends notifications to devices through Apple's push service: HTTP/2 to `/3/device/<token>`, with an
/// ES256 JSON web token made from the operator's `.p8` key (renewed every 50 minutes, as Apple asks).
/// A device Apple calls unregistered or invalid is forgotten. It runs as a service of the server, which closes
/// its connections to Apple once the server has stopped.
package final class APNsSender: Service {
    private let configuration: APNsConfiguration
    /// The signing key's raw bytes (the key type itself is not `Sendable`).
    private let key: Data
    private let client: HTTPClient
    private let store: any Store
    private let metrics: ServerMetrics
    private let logger: Logger
    private let token = Mutex<(value: String, issuedAt: Date)?>(nil)
    /// Set once the connections to Apple are closed.
    private let closed = Mutex(false)

    /// - Throws: ``ServiceError`` when the key is not a P-256 private key in PEM.
    package init(configuration: APNsConfiguration, store: any Store, metrics: ServerMetrics, logger: Logger) throws {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: configuration.privateKeyPEM).rawRepresentation
        } catch {
            throw ServiceError(.failed, "the APNs key is not a .p8 (P-256) private key", underlying: error)
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = configuration.trustedCertificatesPEM {
            let certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
            tls.trustRoots = .certificates(certificates)
        }
        var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
        clientConfiguration.httpVersion = .automatic
        clientConfiguration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        self.configuration = configuration
        self.store = store
        self.metrics = metrics
        self.logger = logger
    }

    /// A sender that never ran as a service (a server that failed to start) closes its connections in the
    /// background: waiting for them could deadlock on the client's own threads.
    deinit {
        if !closed.withLock({ $0 }) { client.shutdown { _ in } }
    }

    /// Waits for the server to stop, then closes the connections to Apple.
    package func run() async throws {
        try? await gracefulShutdown()
        closed.withLock { $0 = true }
        try await client.shutdown()
    }

    /// Sends each notification to its recipient's registered devices.
    package func deliver(_ notifications: [StoredNotification]) async {
        for stored in notifications {
            let notification = stored.notification
            let devices: [PushDevice]
            do {
                devices = try await store.pushDevices(for: notification.recipient, containerID: notification.containerID, environment: notification.environment)
            } catch {
                logger.warning("push devices could not be read", metadata: ["stratus.error": "\(String(reflecting: error))"])
                continue
            }
            for device in devices {
                await send(notification.payload, to: device)
            }
        }
    }

    private func send(_ payload: String, to device: PushDevice) async {
        let host = device.apnsEnvironment == "production" ? configuration.productionHost : configuration.sandboxHost
        var request = HTTPClientRequest(url: "https://\(host)/3/device/\(device.token)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(bearerToken())")
        request.headers.add(name: "apns-topic", value: configuration.topic)
        let isAlert = payload.contains(#""alert":"#) || payload.contains(#""sound":"#) || payload.contains(#""badge":"#)
        request.headers.add(name: "apns-push-type", value: isAlert ? "alert" : "background")
        request.headers.add(name: "apns-priority", value: isAlert ? "10" : "5")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: payload))
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = String(buffer: try await response.body.collect(upTo: 64 * 1024))
            switch response.status.code {
            case 200: metrics.notificationsDelivered(1, via: "apns")
            case 410:
                try await store.deletePushDevice(token: device.token)
            case 400 where body.contains("BadDeviceToken") || body.contains("DeviceTokenNotForTopic"):
                try await store.deletePushDevice(token: device.token)
            default:
                logger.warning("APNs refused a notification", metadata: ["stratus.status": "\(response.status.code)", "stratus.reason": "\(body)"])
            }
        } catch {
            logger.warning("APNs could not be reached", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    /// The current provider token: `{alg: ES256, kid}.{iss: team, iat}` signed with the key.
    package func bearerToken(now: Date = Date()) -> String {
        token.withLock { cached in
            if let cached, now.timeIntervalSince(cached.issuedAt) < 50 * 60 { return cached.value }
            let header = WebAuthTokens.base64URL(Array(#"{"alg":"ES256","kid":"\#(configuration.keyID)"}"#.utf8))
            let claims = WebAuthTokens.base64URL(Array(#"{"iat":\#(Int(now.timeIntervalSince1970)),"iss":"\#(configuration.teamID)"}"#.utf8))
            let signer = try? P256.Signing.PrivateKey(rawRepresentation: key)
            let signature = (try? signer?.signature(for: Data("\(header).\(claims)".utf8)).rawRepresentation) ?? Data()
            let value = "\(header).\(claims).\(WebAuthTokens.base64URL(Array(signature)))"
            cached = (value, now)
            return value
        }
    }
}
