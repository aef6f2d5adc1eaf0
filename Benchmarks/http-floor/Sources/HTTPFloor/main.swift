import Foundation
import NIOCore
import NIOPosix

/// `http-floor PORT nio|hummingbird`: answers `GET /healthz` with `{"status":"ok"}` and nothing else, either
/// from SwiftNIO channel handlers or from a Hummingbird application. Both run their handlers on NIO's event
/// loops, as `stratus serve` does.
let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), ["nio", "hummingbird"].contains(arguments[2]) else {
    print("usage: http-floor PORT nio|hummingbird")
    exit(2)
}
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
if arguments[2] == "nio" {
    try await ChannelHandlerServer.run(port: port)
} else {
    try await HummingbirdServer.run(port: port)
}
