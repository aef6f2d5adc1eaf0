import StratusArchive
import Crypto
import Foundation
import StratusModel

/// Copies the public database of a live CloudKit container into a Stratus server: the schema, then every
/// record of every type with its assets, names and stamps, then a verification of what arrived
/// (`stratus import cloudkit`, docs/import-export.md).
public struct CloudKitImport: Sendable {
    public struct Options: Sendable {
        /// The CloudKit Web Services server read: Apple's by default.
        public var sourceURL = "https://api.apple-cloudkit.com"
        public var container: String
        public var environment: Environment
        public var keyID: String
        public var privateKeyPEM: String
        /// The schema in CloudKit's schema language (`cktool export-schema` writes it).
        public var schemaText: String
        /// The Stratus server written to, and its admin key.
        public var targetURL: String
        public var adminKey: String
        /// Where the import keeps its progress, to resume from.
        public var statePath: String
        /// Records read per query.
        public var pageSize = 200

        public init(
            container: String, environment: Environment, keyID: String, privateKeyPEM: String, schemaText: String,
            targetURL: String, adminKey: String, statePath: String
        ) {
            self.container = container
            self.environment = environment
            self.keyID = keyID
            self.privateKeyPEM = privateKeyPEM
            self.schemaText = schemaText
            self.targetURL = targetURL
            self.adminKey = adminKey
            self.statePath = statePath
        }
    }

    /// How one record type compared once copied.
    public struct Verification: Sendable {
        public var recordType: String
        public var source: RecordDigest
        public var target: RecordDigest
        public var matches: Bool { source == target }
    }

    let options: Options
    let output: @Sendable (String) -> Void
    let source: CloudKitSource
    let target: ImportTarget

    /// - Parameter output: receives each progress line.
    public init(_ options: Options, output: @escaping @Sendable (String) -> Void) throws {
        self.options = options
        self.output = output
        let backoff = Backoff(report: output)
        source = CloudKitSource(
            baseURL: options.sourceURL.hasSuffix("/") ? String(options.sourceURL.dropLast()) : options.sourceURL, container: options.container, environment: options.environment,
            signer: try RequestSigner(keyID: options.keyID, privateKeyPEM: options.privateKeyPEM), backoff: backoff
        )
        target = ImportTarget(
            connection: OperatorConnection(baseURL: options.targetURL, adminKey: options.adminKey, backoff: backoff),
            container: options.container, environment: options.environment
        )
    }

    /// Runs the import, or resumes it from its state file, and verifies it.
    /// - Returns: the verification of every record type.
    /// - Throws: ``TransferError`` when something stops the import; it can be run again to resume.
    public func run() async throws -> [Verification] {
        let types = try Self.recordTypes(in: options.schemaText)
        var state = try ImportState.load(from: options.statePath)
            ?? ImportState(sourceURL: options.sourceURL, container: options.container, environment: options.environment.rawValue)
        guard state.sourceURL == options.sourceURL, state.container == options.container, state.environment == options.environment.rawValue else {
            throw TransferError("the state file \(options.statePath) is of an import of \(state.container) (\(state.environment)) from \(state.sourceURL); give another --state, or remove it")
        }
        var progress = ImportProgress()
        let reporter = TransferReporter(
            connection: target.connection, container: options.container, id: state.transferID, kind: "import cloudkit",
            peer: "\(options.container) (\(options.environment.rawValue)) at \(options.sourceURL)", startedAt: state.startedAt, output: output
        )
        do {
            let results = try await copyAll(types, state: &state, progress: &progress, reporter: reporter)
            let mismatched = results.filter { !$0.matches }.map(\.recordType)
            await report(
                reporter, state, progress, mismatched.isEmpty ? .finished : .failed,
                mismatched.isEmpty ? "verified \(state.recordsDone) records of \(types.count) types" : "the target differs from the source in \(mismatched.joined(separator: ", "))"
            )
            return results
        } catch {
            await report(reporter, state, progress, .failed, "\(error)")
            throw error
        }
    }

    /// The import's steps: the schema, the counts, the copy of every type, the verification. Once a run has copied
    /// every type, a run again copies what changed at the source since (``update(_:state:progress:reporter:)``).
    private func copyAll(_ types: [String], state: inout ImportState, progress: inout ImportProgress, reporter: TransferReporter) async throws -> [Verification] {
        let copiedBefore = !types.isEmpty && types.allSatisfy { state.types[$0]?.isDone == true }
        if state.recordsDone > 0, !copiedBefore { output("resuming from \(options.statePath): \(state.recordsDone) records copied before") }
        try await target.applySchema(options.schemaText)
        output("schema applied: \(types.count) record types")
        await report(reporter, state, progress, .running)
        if copiedBefore {
            try await update(types, state: &state, progress: &progress, reporter: reporter)
            return try await verify(types, state: state)
        }

        for type in types where state.types[type]?.total == nil {
            var typeProgress = state.types[type] ?? .init()
            typeProgress.total = try await count(type)
            state.types[type] = typeProgress
            try state.save(to: options.statePath)
        }
        let total = types.reduce(0) { $0 + (state.types[$1]?.total ?? 0) }
        output("to copy: " + types.map { "\($0) \(state.types[$0]?.total ?? 0)" }.joined(separator: ", ") + " (\(total) records)")
        await report(reporter, state, progress, .running)

        for type in types {
            try await copy(type, state: &state, progress: &progress, total: total, reporter: reporter)
        }
        return try await verify(types, state: state)
    }

    /// Tells the target's console how the import is going.
    func report(
        _ reporter: TransferReporter, _ state: ImportState, _ progress: ImportProgress, _ phase: TransferStatus.State, _ message: String? = nil
    ) async {
        await reporter.report(phase, done: state.recordsDone, total: state.recordsTotal, bytes: state.bytes, doneThisRun: progress.records, message: message)
    }

    /// The record types of the schema, each with a queryable `recordName`.
    static func recordTypes(in text: String) throws -> [String] {
        let schema: Schema
        do {
            schema = try SchemaLanguage.parse(text)
        } catch {
            throw TransferError("the schema file cannot be read: \(error)")
        }
        let types = schema.recordTypes.keys.sorted()
        let unlisted = types.filter { !(schema.recordTypes[$0]?.systemFieldIndexes["___recordID"]?.contains(.queryable) ?? false) }
        guard unlisted.isEmpty else {
            throw TransferError(
                "CloudKit lists the records of a type only when its recordName is queryable, and \(unlisted.joined(separator: ", ")) "
                    + "\(unlisted.count == 1 ? "has" : "have") no such index. Add \"___recordID\" REFERENCE QUERYABLE to "
                    + "\(unlisted.count == 1 ? "it" : "each") in the source's schema, deploy it, export the schema again, and run the import again"
            )
        }
        return types
    }

    /// How many records of a type the source has, read page by page without their fields.
    private func count(_ type: String) async throws -> Int {
        var count = 0
        var marker: String?
        repeat {
            let page = try await source.query(recordType: type, continuationMarker: marker, limit: options.pageSize, desiredKeys: [])
            count += page.records.count
            marker = page.continuationMarker
        } while marker != nil
        return count
    }

    /// Copies the pages of a type not copied yet, saving the state after each.
    private func copy(_ type: String, state: inout ImportState, progress: inout ImportProgress, total: Int, reporter: TransferReporter) async throws {
        var typeProgress = state.types[type] ?? .init()
        while !typeProgress.isDone {
            let page = try await source.query(recordType: type, continuationMarker: typeProgress.continuationMarker, limit: options.pageSize)
            var records: [ImportedRecord] = []
            var digest = typeProgress.digest
            var bytes: Int64 = 0
            for record in page.records {
                let (imported, fileBytes) = try await importable(record, type: type)
                bytes += fileBytes
                digest.add(recordName: imported.recordName, recordType: type, created: imported.created, modified: imported.modified, fields: imported.fields)
                records.append(imported)
            }
            if !records.isEmpty { try await target.importRecords(records) }
            typeProgress.digest = digest
            typeProgress.bytes += bytes
            typeProgress.continuationMarker = page.continuationMarker
            typeProgress.isDone = page.continuationMarker == nil
            state.types[type] = typeProgress
            try state.save(to: options.statePath)
            progress.add(records: records.count, bytes: bytes)
            output(progress.line(recordType: type, typeDone: digest.count, typeTotal: typeProgress.total, allDone: state.recordsDone, allTotal: total))
            await report(reporter, state, progress, .running)
        }
    }

    /// A record read from the source as the target saves it, its files copied first; with the bytes they hold.
    func importable(_ record: WireRecord, type: String) async throws -> (record: ImportedRecord, bytes: Int64) {
        if let code = record.serverErrorCode {
            throw TransferError("the source answered \(code) for record \(record.recordName) of \(type): \(record.reason ?? "")")
        }
        var bytes: Int64 = 0
        let fields = try await AssetValues.map(record.fields ?? [:]) { field, asset in
            let copied = try await copyFile(asset, field: field, record: record.recordName, type: type)
            bytes += copied.bytes
            return copied.value
        }
        let created = record.created ?? .unknown
        let modified = record.modified ?? created
        return (ImportedRecord(recordName: record.recordName, recordType: type, fields: fields, created: created, modified: modified), bytes)
    }

    /// Copies a file of an asset field to the target, and answers the value the target takes: the file by its
    /// receipt, checksum and size.
    private func copyFile(_ asset: [String: JSONValue], field: String, record: String, type: String) async throws -> (value: JSONValue, bytes: Int64) {
        guard case .string(let url)? = asset["downloadURL"] else {
            throw TransferError("field \(field) of \(type) \(record) holds a file the source gave no downloadURL for")
        }
        // CloudKit's download URLs leave the file name to the client.
        let file = try await source.download(url.replacingOccurrences(of: "${f}", with: "file"), what: "\(field) of \(record)")
        let checksum = Data(SHA256.hash(data: file)).base64EncodedString()
        let stored = try await target.upload(file, recordType: type, fieldName: field, recordName: record)
        guard stored.fileChecksum == checksum, stored.size == Int64(file.count) else {
            throw TransferError("the file of \(field) of \(record) arrived changed at the target; run the import again")
        }
        return (.object(["receipt": .string(stored.receipt), "fileChecksum": .string(checksum), "size": .integer(Int64(file.count))]), Int64(file.count))
    }

    /// Reads every type back from the target and compares it with what was copied.
    private func verify(_ types: [String], state: ImportState) async throws -> [Verification] {
        var results: [Verification] = []
        for type in types {
            var digest = RecordDigest()
            var marker: String?
            repeat {
                let page = try await target.query(recordType: type, continuationMarker: marker, limit: 200)
                for record in page.records where record.serverErrorCode == nil {
                    digest.add(recordName: record.recordName, recordType: type, created: record.created, modified: record.modified, fields: record.fields ?? [:])
                }
                marker = page.continuationMarker
            } while marker != nil
            results.append(Verification(recordType: type, source: state.types[type]?.digest ?? RecordDigest(), target: digest))
        }
        return results
    }
}
