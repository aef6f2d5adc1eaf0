import StratusServices
import Hummingbird
import Logging

/// The request context of every Stratus route.
public struct StratusRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The IP address of the connection's peer, when it has one: the client, or the proxy in front.
    public let peerAddress: String?
    /// What the route learned about the request, for telemetry and the request log.
    let notes = RequestNotes()
    /// What an admin operation declared it needs of its actor (``AdminAccess``); `nil` outside the admin API.
    var adminAccess: AdminAccess?

    public init(source: Source) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Bodies are read with explicit limits per route (see `RequestBody`), so the framework's own cap
    /// is only a backstop above the largest of them.
    public var maxUploadSize: Int { RequestLimits.frameworkBody }
}
