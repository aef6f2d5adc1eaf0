import Foundation
import NIOCore
import NIOPosix

/// `http-floor PORT MODE`: answers `GET /healthz` with `{"status":"ok"}` and nothing else. Every mode runs its
/// handlers on NIO's event loops, as `stratus serve` does:
/// - `nio`: channel handlers answering on the spot;
/// - `task`: channel handlers starting a task per request, which answers;
/// - `router`: the same, the task asking a Hummingbird router;
/// - `hummingbird`: a Hummingbird application (its async connection handling and router).
let arguments = CommandLine.arguments
let modes = ["nio", "task", "router", "hummingbird"]
guard arguments.count == 3, let port = Int(arguments[1]), modes.contains(arguments[2]) else {
    print("usage: http-floor PORT \(modes.joined(separator: "|"))")
    exit(2)
}
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
switch arguments[2] {
case "nio": try await ChannelHandlerServer.run(port: port)
case "task": try await TaskPerRequestServer.run(port: port, throughRouter: false)
case "router": try await TaskPerRequestServer.run(port: port, throughRouter: true)
default: try await HummingbirdServer.run(port: port)
}
