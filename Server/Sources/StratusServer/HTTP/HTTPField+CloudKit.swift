import StratusServices
import HTTPTypes

extension HTTPField.Name {
    /// The web auth token, sent back on every response to a signed-in request (`docs/protocol.md#web-auth-tokens`).
    static let cloudKitWebAuthToken = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!
    /// Server-to-server request signing headers (`docs/protocol.md#server-to-server-keys`).
    static let cloudKitKeyID = HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!
    static let cloudKitDate = HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!
    static let cloudKitSignature = HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!
    /// Which device a write comes from, recorded in `created` and `modified`.
    static let stratusDeviceID = HTTPField.Name("X-Stratus-Device-ID")!
    /// The console session's CSRF token, required beside its cookie.
    static let stratusCSRF = HTTPField.Name("X-Stratus-CSRF")!
    /// For a console session: the user whose private database a call addresses.
    static let stratusUser = HTTPField.Name("X-Stratus-User")!
    /// The client's address as a proxy in front saw it, believed only when configured to.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
