import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports and programs of this machine, for tests that start servers of their own.
public enum Loopback {
    /// A loopback port nothing listens on now.
    public static func freePort() throws -> Int {
        let reservation = try reservePort()
        reservation.release()
        return reservation.port
    }

    /// Holds a free loopback port until ``PortReservation/release()``, for a server started later that binds it
    /// with `SO_REUSEPORT` (nginx's `listen ... reuseport`): meanwhile no other socket is given the port.
    public static func reservePort() throws -> PortReservation {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoopbackError(description: "no socket for a port reservation") }
        var enabled: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &enabled, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &enabled, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw LoopbackError(description: "no free loopback port")
        }
        return PortReservation(port: Int(UInt16(bigEndian: address.sin_port)), descriptor: descriptor)
    }

    /// A loopback port bound (not listening) so that the kernel gives it to no one else; see ``reservePort()``.
    public final class PortReservation: Sendable {
        public let port: Int
        private let descriptor: Mutex<Int32?>

        fileprivate init(port: Int, descriptor: Int32) {
            self.port = port
            self.descriptor = Mutex(descriptor)
        }

        deinit { release() }

        /// Lets the port go, once the server it was held for listens on it.
        public func release() {
            if let held = descriptor.withLock({ held in defer { held = nil }; return held }) { close(held) }
        }
    }

    /// Whether something accepts connections on the loopback `port`.
    public static func isListening(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// The path of the executable `name` on `PATH` (and in the `sbin` folders, where Debian puts servers).
    public static func findExecutable(_ name: String) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public struct LoopbackError: Error, CustomStringConvertible {
        public var description: String
    }
}
