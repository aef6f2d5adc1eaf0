import ArgumentParser
import Foundation
import StratusServer
#if canImport(Glibc)
import Glibc
#endif

/// `stratus serve`'s options for slow and greedy clients, and for the proxy in front.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Seconds a connection may take to send a request head, idle time included (STRATUS_HEAD_TIMEOUT). Default 20.")
    var headTimeout: Double?

    @Option(help: "Seconds a request body may go without a byte (STRATUS_BODY_TIMEOUT). Default 30.")
    var bodyTimeout: Double?

    @Option(help: "Connections one client address may hold open (STRATUS_MAX_CONNECTIONS_PER_ADDRESS). Default 256; raise it behind a proxy.")
    var maxConnectionsPerAddress: Int?

    @Flag(help: "Take the client address from X-Forwarded-For, as a proxy in front writes it (STRATUS_TRUST_FORWARDED_FOR=1).")
    var trustForwardedFor = false

    func limits() throws -> ConnectionLimits {
        let head = headTimeout ?? environmentValue("STRATUS_HEAD_TIMEOUT").flatMap(Double.init) ?? 20
        let body = bodyTimeout ?? environmentValue("STRATUS_BODY_TIMEOUT").flatMap(Double.init) ?? 30
        let perAddress = maxConnectionsPerAddress ?? environmentValue("STRATUS_MAX_CONNECTIONS_PER_ADDRESS").flatMap(Int.init) ?? 256
        guard head > 0, body > 0, perAddress > 0 else {
            throw ValidationError("--head-timeout, --body-timeout and --max-connections-per-address must be positive")
        }
        return ConnectionLimits(
            requestHeadTimeout: .milliseconds(Int64(head * 1000)), bodyIdleTimeout: .milliseconds(Int64(body * 1000)),
            maximumConnectionsPerAddress: perAddress
        )
    }

    /// Raises the process's open-file limit to the most it may have: every connection is a file, and the
    /// usual soft limit of 1,024 is low for a server.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
