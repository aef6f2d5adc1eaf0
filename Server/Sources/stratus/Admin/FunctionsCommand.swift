import ArgumentParser
import Foundation
import StratusModel

/// `stratus functions ...`: WebAssembly modules and the functions bound to them, through a running server, which
/// checks each module and runs it on every node at once (docs/hooks.md).
struct FunctionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions", abstract: "Upload WebAssembly modules and bind their functions to triggers.",
        subcommands: [Upload.self, Bind.self, List.self, Remove.self]
    )

    /// A container and one of its environments.
    struct Place: ParsableArguments {
        @OptionGroup var target: SchemaCommand.Target

        @Option(help: "development or production.")
        var environment: Environment = .development
    }

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Upload (or replace) a module from a .wasm file.")

        @OptionGroup var place: Place

        @Argument(help: "The module's name.")
        var name: String

        @Argument(help: "The .wasm file.")
        var file: String

        func run() async throws {
            try await reportingErrors {
                guard let bytes = FileManager.default.contents(atPath: file) else { throw CommandFailure("cannot read \(file)") }
                let module = try await place.target.admin.remote(for: "stratus functions")
                    .uploadModule(bytes, named: name, container: place.target.container, environment: place.environment)
                let entries = module.entries.joined(separator: ", ")
                print("Uploaded \(name) (\(module.size) bytes); it exports: \(entries.isEmpty ? "no callable function" : entries)")
            }
        }
    }

    struct Bind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create or replace a function: a module's export bound to a trigger.")

        @OptionGroup var place: Place

        @Argument(help: "The function's name (what clients call, for callable functions).")
        var name: String

        @Option(help: "The module.")
        var module: String

        @Option(help: "beforeSave, afterSave, callable or schedule.")
        var trigger: String

        @Option(help: "The exported function to call (by default before_save, after_save, call or scheduled).")
        var entry: String?

        @Option(name: .customLong("record-type"), help: "A record type it runs for (beforeSave, afterSave); repeat for more.")
        var recordTypes: [String] = []

        @Option(name: .customLong("database-scope"), help: "A database it runs for (public, private, shared); repeat for more.")
        var databases: [String] = []

        @Option(help: "The custom role whose permissions its record requests have (otherwise the caller's).")
        var role: String?

        @Option(name: .customLong("grant"), help: "A capability to grant: clock or random; repeat for more.")
        var grants: [String] = []

        @Option(help: "Instructions a call may execute.")
        var instructions: Int?

        @Option(help: "Memory a call may use, in bytes.")
        var memoryBytes: Int?

        @Option(help: "Seconds a call may take.")
        var seconds: Double?

        @Flag(help: "Keep the function but turn it off.")
        var disabled = false

        func run() async throws {
            try await reportingErrors {
                let limits = FunctionLimitSettings(instructions: instructions.map { UInt64(max(0, $0)) }, memoryBytes: memoryBytes, seconds: seconds)
                let settings = FunctionSettings(
                    module: module, entry: entry, trigger: trigger, recordTypes: recordTypes.isEmpty ? nil : recordTypes,
                    databases: databases.isEmpty ? nil : databases, runAsRole: role, grants: grants.isEmpty ? nil : grants,
                    limits: limits == FunctionLimitSettings() ? nil : limits, enabled: !disabled
                )
                let saved = try await place.target.admin.remote(for: "stratus functions")
                    .saveFunction(settings, named: name, container: place.target.container, environment: place.environment)
                print("Bound \(name): \(saved.trigger) → \(saved.module).\(saved.entry)")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's modules and functions.")

        @OptionGroup var target: SchemaCommand.Target

        func run() async throws {
            try await reportingErrors {
                let listed = try await target.admin.remote(for: "stratus functions").functions(container: target.container)
                for module in listed.modules {
                    print("module \(module.environment)/\(module.name)  \(module.size) bytes  exports: \(module.entries.joined(separator: ", "))")
                }
                for function in listed.functions {
                    let types = function.recordTypes.joined(separator: ",")
                    let state = function.enabled ? "" : "  (off)"
                    print("function \(function.environment)/\(function.name)  \(function.trigger)"
                        + "\(types.isEmpty ? "" : " [\(types)]")  \(function.module).\(function.entry)\(state)")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a function, or a module no function uses (--module).")

        @OptionGroup var place: Place

        @Argument(help: "The function's (or module's) name.")
        var name: String

        @Flag(help: "Remove the module of this name.")
        var module = false

        func run() async throws {
            try await reportingErrors {
                try await place.target.admin.remote(for: "stratus functions")
                    .deleteFunction(named: name, module: module, container: place.target.container, environment: place.environment)
                print("Removed \(module ? "module" : "function") \(name).")
            }
        }
    }
}

/// `stratus jobs ...`: jobs run on a schedule, calling a function or a webhook endpoint.
struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs", abstract: "Run functions or webhooks on a schedule.", subcommands: [SetJob.self, List.self, Remove.self]
    )

    struct SetJob: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Create or replace a scheduled job.")

        @OptionGroup var place: FunctionsCommand.Place

        @Argument(help: "The job's name.")
        var name: String

        @Option(help: "A cron expression (five fields, or six with seconds first), or @hourly, @daily, @weekly, @monthly.")
        var schedule: String

        @Option(help: "The function to call (trigger schedule).")
        var function: String?

        @Option(help: "The webhook endpoint's ID to send a job.run event to.")
        var webhook: String?

        @Option(help: "The IANA time zone the schedule is read in.")
        var timeZone = "UTC"

        @Flag(help: "Skip runs that fell due while no node was up (by default one run makes up for them).")
        var skipMissed = false

        @Flag(help: "Keep the job but turn it off.")
        var disabled = false

        func run() async throws {
            try await reportingErrors {
                let settings = ScheduledJobSettings(
                    schedule: schedule, timeZone: timeZone, function: function, webhook: webhook, missedRuns: skipMissed ? "skip" : "runOnce",
                    enabled: !disabled
                )
                let saved = try await place.target.admin.remote(for: "stratus jobs")
                    .saveJob(settings, named: name, container: place.target.container, environment: place.environment)
                let next = Date(timeIntervalSince1970: Double(saved.nextRun) / 1000)
                print("Scheduled \(name) (\(schedule)); next run \(ISO8601DateFormatter().string(from: next)).")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's jobs with their latest runs.")

        @OptionGroup var target: SchemaCommand.Target

        func run() async throws {
            try await reportingErrors {
                for job in try await target.admin.remote(for: "stratus jobs").jobs(container: target.container) {
                    let what = job.function.map { "function \($0)" } ?? "webhook \(job.webhook ?? "")"
                    print("\(job.environment)/\(job.name)  \(job.schedule)  → \(what)")
                    for run in job.lastRuns {
                        let time = Date(timeIntervalSince1970: Double(run.scheduledFor) / 1000)
                        print("    \(ISO8601DateFormatter().string(from: time))  \(run.status)  \(run.node)  \(run.result)")
                    }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a scheduled job and its runs.")

        @OptionGroup var place: FunctionsCommand.Place

        @Argument(help: "The job's name.")
        var name: String

        func run() async throws {
            try await reportingErrors {
                try await place.target.admin.remote(for: "stratus jobs").deleteJob(named: name, container: place.target.container, environment: place.environment)
                print("Removed job \(name).")
            }
        }
    }
}

