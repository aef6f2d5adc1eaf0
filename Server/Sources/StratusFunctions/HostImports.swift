import Foundation
@_spi(Fuzzing) import WasmKit
import WasmParser

/// Raised by `proc_exit` to end a call.
struct ProcessExit: Error {
    var status: UInt32
}

/// The functions a module may import: the `stratus` host interface and a part of WASI preview 1 (standard input is
/// the call's input, standard output its answer, standard error its log; no files, no sockets, clocks and randomness
/// only when granted).
enum HostImports {
    static let wasi = "wasi_snapshot_preview1"
    static let host = "stratus"

    // WASI's error numbers the server answers with.
    static let success: UInt32 = 0
    static let badDescriptor: UInt32 = 8
    static let invalid: UInt32 = 28
    static let notImplemented: UInt32 = 52
    static let notSeekable: UInt32 = 70
    static let notCapable: UInt32 = 76

    /// The signatures of the functions the server implements.
    static let signatures: [String: [String: FunctionType]] = [
        host: [
            "input_size": FunctionType(parameters: [], results: [.i32]),
            "input": FunctionType(parameters: [.i32], results: []),
            "output": FunctionType(parameters: [.i32, .i32], results: []),
            "log": FunctionType(parameters: [.i32, .i32], results: []),
            "request": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "response": FunctionType(parameters: [.i32], results: []),
        ],
        wasi: [
            "fd_write": FunctionType(parameters: [.i32, .i32, .i32, .i32], results: [.i32]),
            "fd_read": FunctionType(parameters: [.i32, .i32, .i32, .i32], results: [.i32]),
            "fd_close": FunctionType(parameters: [.i32], results: [.i32]),
            "fd_fdstat_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "fd_seek": FunctionType(parameters: [.i32, .i64, .i32, .i32], results: [.i32]),
            "fd_prestat_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "proc_exit": FunctionType(parameters: [.i32], results: []),
            "args_sizes_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "args_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "environ_sizes_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "environ_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "clock_time_get": FunctionType(parameters: [.i32, .i64, .i32], results: [.i32]),
            "clock_res_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "random_get": FunctionType(parameters: [.i32, .i32], results: [.i32]),
            "sched_yield": FunctionType(parameters: [], results: [.i32]),
        ],
    ]

    /// The declared type of a function import.
    static func type(of item: Import, in module: Module) -> FunctionType? {
        guard case .function(let index) = item.descriptor else { return nil }
        return module.functionType(at: index)
    }

    /// Refuses an import the server does not offer, or offers with another signature.
    static func check(_ item: Import, in module: Module) throws(FunctionError) {
        guard item.module == wasi || item.module == host else {
            throw FunctionError(.invalidModule, "the module imports \(item.module).\(item.name); only \(host) and \(wasi) functions are offered")
        }
        guard let declared = type(of: item, in: module) else {
            throw FunctionError(.invalidModule, "the module imports \(item.module).\(item.name) as something other than a function")
        }
        if let expected = signatures[item.module]?[item.name] {
            guard declared == expected else {
                throw FunctionError(
                    .invalidModule, "the module imports \(item.module).\(item.name) as \(declared); the server offers \(expected)"
                )
            }
        } else if item.module == host || declared.results != [.i32] {
            throw FunctionError(.invalidModule, "the module imports \(item.module).\(item.name), which the server does not offer")
        }
    }

    /// Imports that trap if called, for compiling a module without running it.
    static func trapping(for module: Module, store: Store) -> Imports {
        var imports = Imports()
        for item in module.imports {
            guard let type = type(of: item, in: module) else { continue }
            imports.define(module: item.module, name: item.name, Function(store: store, type: type) { _, _ in
                throw FunctionError(.trapped, "a module being checked called \(item.name)")
            })
        }
        return imports
    }

    /// The imports of an instance, which answer for whichever call `context` holds.
    static func imports(for module: Module, store: Store, context: CallContext) -> Imports {
        var imports = Imports()
        for item in module.imports {
            guard let type = type(of: item, in: module) else { continue }
            let body: Function.Implementation
            if item.module == host {
                body = hostFunction(item.name, context)
            } else {
                body = wasiFunction(item.name, context) ?? { _, _ in [.i32(notImplemented)] }
            }
            imports.define(module: item.module, name: item.name, Function(store: store, type: type, body: body))
        }
        return imports
    }

    private static func hostFunction(_ name: String, _ context: CallContext) -> Function.Implementation {
        switch name {
        case "input_size":
            return { _, _ in [.i32(UInt32(context.state.input.count))] }
        case "input":
            return { caller, arguments in
                let state = context.state
                try CheckedMemory(caller).write(state.input, at: arguments[0].i32)
                return []
            }
        case "output":
            return { caller, arguments in
                let state = context.state
                try state.write(try CheckedMemory(caller).read(arguments[0].i32, count: arguments[1].i32))
                return []
            }
        case "log":
            return { caller, arguments in
                let state = context.state
                state.log(try CheckedMemory(caller).read(arguments[0].i32, count: arguments[1].i32))
                return []
            }
        case "request":
            return { caller, arguments in
                let state = context.state
                try state.checkDeadline()
                let body = try CheckedMemory(caller).read(arguments[0].i32, count: arguments[1].i32)
                state.response = try state.request(body)
                return [.i32(UInt32(state.response.count))]
            }
        default:  // "response"
            return { caller, arguments in
                let state = context.state
                try CheckedMemory(caller).write(state.response, at: arguments[0].i32)
                return []
            }
        }
    }

    private static func wasiFunction(_ name: String, _ context: CallContext) -> Function.Implementation? {
        switch name {
        case "fd_write":
            return { caller, arguments in
                let state = context.state
                let fd = arguments[0].i32
                guard fd == 1 || fd == 2 else { return [.i32(badDescriptor)] }
                let memory = try CheckedMemory(caller)
                var written: UInt32 = 0
                for (address, length) in try memory.buffers(arguments[1].i32, count: arguments[2].i32) {
                    let bytes = try memory.read(address, count: length)
                    if fd == 1 { try state.write(bytes) } else { state.log(bytes) }
                    written &+= length
                }
                try memory.setU32(written, at: arguments[3].i32)
                return [.i32(success)]
            }
        case "fd_read":
            return { caller, arguments in
                let state = context.state
                guard arguments[0].i32 == 0 else { return [.i32(badDescriptor)] }
                let memory = try CheckedMemory(caller)
                var read: UInt32 = 0
                for (address, length) in try memory.buffers(arguments[1].i32, count: arguments[2].i32) {
                    let start = min(state.inputRead, state.input.count)
                    let end = min(start + Int(length), state.input.count)
                    try memory.write(Array(state.input[start..<end]), at: address)
                    state.inputRead = end
                    read &+= UInt32(end - start)
                }
                try memory.setU32(read, at: arguments[3].i32)
                return [.i32(success)]
            }
        case "fd_close":
            return { _, arguments in [.i32(arguments[0].i32 <= 2 ? success : badDescriptor)] }
        case "fd_fdstat_get":
            return { caller, arguments in
                guard arguments[0].i32 <= 2 else { return [.i32(badDescriptor)] }
                // A character device, no flags, the rights to read and write.
                let memory = try CheckedMemory(caller)
                try memory.write([2, 0, 0, 0, 0, 0, 0, 0], at: arguments[1].i32)
                try memory.setU64(0x42, at: arguments[1].i32 &+ 8)
                try memory.setU64(0, at: arguments[1].i32 &+ 16)
                return [.i32(success)]
            }
        case "fd_seek":
            return { _, arguments in [.i32(arguments[0].i32 <= 2 ? notSeekable : badDescriptor)] }
        case "fd_prestat_get":
            // No directory is opened for the module: it has no file system.
            return { _, _ in [.i32(badDescriptor)] }
        case "proc_exit":
            return { _, arguments in throw ProcessExit(status: arguments[0].i32) }
        case "args_sizes_get", "environ_sizes_get":
            return { caller, arguments in
                let memory = try CheckedMemory(caller)
                try memory.setU32(0, at: arguments[0].i32)
                try memory.setU32(0, at: arguments[1].i32)
                return [.i32(success)]
            }
        case "args_get", "environ_get", "sched_yield":
            return { _, _ in [.i32(success)] }
        case "clock_time_get":
            return { caller, arguments in
                let state = context.state
                guard state.grants.contains(.clock) else { return [.i32(notCapable)] }
                let nanoseconds: UInt64
                switch arguments[0].i32 {
                case 0: nanoseconds = UInt64(Date().timeIntervalSince1970 * 1_000_000_000)
                case 1: nanoseconds = DispatchTime.now().uptimeNanoseconds
                default: return [.i32(invalid)]
                }
                try CheckedMemory(caller).setU64(nanoseconds, at: arguments[2].i32)
                return [.i32(success)]
            }
        case "clock_res_get":
            return { caller, arguments in
                let state = context.state
                guard state.grants.contains(.clock) else { return [.i32(notCapable)] }
                try CheckedMemory(caller).setU64(1_000, at: arguments[1].i32)
                return [.i32(success)]
            }
        case "random_get":
            return { caller, arguments in
                let state = context.state
                guard state.grants.contains(.random) else { return [.i32(notCapable)] }
                guard arguments[1].i32 <= 65_536 else { return [.i32(invalid)] }
                var generator = SystemRandomNumberGenerator()
                let bytes = (0..<arguments[1].i32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                try CheckedMemory(caller).write(bytes, at: arguments[0].i32)
                return [.i32(success)]
            }
        default:
            return nil
        }
    }
}
