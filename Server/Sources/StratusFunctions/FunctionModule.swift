@_spi(Fuzzing) import WasmKit
import WasmParser

/// A WebAssembly module accepted by the server: parsed once, checked for what it imports, and compiled through
/// once so that an invalid function body is refused on upload rather than on its first call.
public struct FunctionModule: Sendable {
    /// Largest module the server keeps.
    public static let maximumBytes = 8 << 20

    /// The module as run: its mutable globals exported (``GlobalExports``), so that reused instances are reset.
    let parsed: Module
    /// The indices of its mutable globals.
    let mutableGlobals: [Int]
    /// Its idle instances, for the calls to come.
    let pool = InstancePool()
    /// The exported functions a binding may name as its entry: those that take nothing and return nothing or an
    /// `i32` status.
    public let entries: [String]
    /// Whether the module exports its memory as `memory`, which the host needs to pass data in and out.
    public let exportsMemory: Bool

    /// Parses and checks a module's bytes.
    /// - Throws: ``FunctionError/Kind/invalidModule`` saying what is wrong.
    public init(bytes: [UInt8]) throws(FunctionError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FunctionError(.invalidModule, "the module has \(bytes.count) bytes; at most \(Self.maximumBytes) are accepted")
        }
        guard bytes.starts(with: [0x00, 0x61, 0x73, 0x6D]) else {
            throw FunctionError(.invalidModule, "the file is not a WebAssembly module (it does not start with \\0asm)")
        }
        var module: Module
        let rewritten: (bytes: [UInt8], globals: [Int])
        do {
            rewritten = try GlobalExports.exportingMutableGlobals(bytes)
            module = try parseWasm(bytes: rewritten.bytes)
        } catch {
            throw FunctionError(.invalidModule, "the module is not valid WebAssembly: \(error)")
        }
        for item in module.imports {
            try HostImports.check(item, in: module)
        }
        let original = module
        // Compiling every function checks every body; the start function is left out so that checking runs no code.
        // Software bounds checks, as for calls: no guard pages and no fault handler in the server process.
        module.dropStartFunction()
        let engine = Engine(configuration: EngineConfiguration(compilationMode: .eager, memoryBoundsChecking: .software))
        let store = Store(engine: engine)
        let instance: Instance
        do {
            instance = try module.instantiate(store: store, imports: HostImports.trapping(for: module, store: store))
        } catch {
            throw FunctionError(.invalidModule, "the module does not compile: \(error)")
        }
        var entries: [String] = []
        var exportsMemory = false
        for (name, value) in instance.exports {
            switch value {
            case .function(let function):
                let type = function.type
                if type.parameters.isEmpty && (type.results.isEmpty || type.results == [.i32]) { entries.append(name) }
            case .memory where name == "memory":
                exportsMemory = true
            default:
                break
            }
        }
        guard exportsMemory else {
            throw FunctionError(.invalidModule, "the module must export its linear memory as \"memory\"")
        }
        self.parsed = original
        self.mutableGlobals = rewritten.globals
        self.entries = entries.sorted()
        self.exportsMemory = exportsMemory
    }

    /// Checks that the module exports `entry` with a signature the server can call.
    /// - Throws: ``FunctionError/Kind/missingExport``.
    public func requireEntry(_ entry: String) throws(FunctionError) {
        guard entries.contains(entry) else {
            let known = entries.isEmpty ? "none" : entries.joined(separator: ", ")
            throw FunctionError(
                .missingExport,
                "the module exports no function \"\(entry)\" taking nothing and returning nothing or an i32 (it has: \(known))"
            )
        }
    }
}
