import Hummingbird
import Logging

/// The request context of every Stratus route.
public struct StratusRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: Source) {
        coreContext = .init(source: source)
    }

    /// Bodies are read with explicit limits per route (see `RequestBody`), so the framework's own cap
    /// is only a backstop above the largest of them.
    public var maxUploadSize: Int { 64 * 1024 * 1024 }
}
