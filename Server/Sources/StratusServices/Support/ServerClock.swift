import Foundation

/// The server's time: milliseconds since 1970, as every stored time and wire time is written.
package enum ServerClock {
    package static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }
}
