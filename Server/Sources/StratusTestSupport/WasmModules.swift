import Foundation
import StratusStoreTesting
import Synchronization

/// WebAssembly modules built from C for the tests, with the toolchain's own `clang --target=wasm32` (the compiler
/// next to `swift`, or `STRATUS_CLANG`).
public enum WasmModules {
    /// The server package's folder.
    public static let packageFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The C examples of docs/hooks.md.
    public static func example(_ name: String, stripped: Bool = false) throws -> [UInt8] {
        try compile(packageFolder.appendingPathComponent("Examples/functions/\(name).c"), stripped: stripped)
    }

    /// Modules written for the tests (`Tests/Fixtures/functions`).
    public static func fixture(_ name: String) throws -> [UInt8] {
        try compile(packageFolder.appendingPathComponent("Tests/Fixtures/functions/\(name).c"))
    }

    /// Compiles one C file into a module, as docs/hooks.md says to; `stripped` leaves out the names and the producers
    /// section, whose bytes depend on the paths compiled.
    public static func compile(_ source: URL, stripped: Bool = false) throws -> [UInt8] {
        let key = "\(source.path)|\(stripped)"
        if let built = built.withLock({ $0[key] }) { return built }
        let bytes = try build(source, stripped: stripped)
        built.withLock { $0[key] = bytes }
        return bytes
    }

    /// Modules built so far in this process: clang runs once per file (tests call this from Swift's shared threads,
    /// which a compiler run blocks while it lasts).
    private static let built = Mutex<[String: [UInt8]]>([:])

    private static func build(_ source: URL, stripped: Bool) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-\(UUID().uuidString).wasm")
        defer { try? FileManager.default.removeItem(at: output) }
        // ChildProcess, not Foundation's Process, whose start crashes the test run now and then on Linux.
        let arguments = ["--target=wasm32", "-nostdlib", "-fno-builtin", "-O2", "-Wl,--no-entry", "-o", output.path, source.path]
            + (stripped ? ["-Wl,--strip-all"] : [])
        let child = try ChildProcess(try clang().path, arguments, output: .pipe, errors: .output)
        let message = child.output?.readDataToEndOfFile() ?? Data()
        guard child.waitForExit() == 0 else {
            throw BuildFailure(message: "clang failed on \(source.lastPathComponent): \(String(decoding: message, as: UTF8.self))")
        }
        return Array(try Data(contentsOf: output))
    }

    struct BuildFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// The C compiler: `STRATUS_CLANG`, else the `clang` beside `swift` on the `PATH`.
    static func clang() throws -> URL {
        if let named = ProcessInfo.processInfo.environment["STRATUS_CLANG"], !named.isEmpty { return URL(fileURLWithPath: named) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") {
            let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
            let clang = swift.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("clang")
            if FileManager.default.isExecutableFile(atPath: swift.path), FileManager.default.isExecutableFile(atPath: clang.path) {
                return clang
            }
        }
        throw BuildFailure(message: "no clang beside swift on the PATH (\(path)); set STRATUS_CLANG")
    }
}
