import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `records/resolve` and `records/accept` (`docs/protocol.md#sharing`), and the share links themselves
/// (`GET /share/<shortGUID>`).
struct SharesController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.post("records/resolve", use: resolve)
        group.post("records/accept", use: accept)
    }

    func registerLinks(on router: Router<StratusRequestContext>) {
        router.get("share/:shortGUID", use: link)
    }

    /// Share metadata for each link, or a per-item `NOT_FOUND` / `ACCESS_DENIED`. Anyone may resolve a link
    /// whose public permission is not `NONE`; other links answer only their owner and participants.
    @Sendable func resolve(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await decode(call, request)
        var results: [Result<ShareResolution, APIError>] = []
        for item in body.shortGUIDs {
            results.append(await outcome { try await resolution(of: item, call: call, accepting: false) })
        }
        return respond(results, items: body.shortGUIDs, call: call)
    }

    /// Joins each share: the caller becomes an accepted participant, and the owner's zone appears in the
    /// caller's shared database.
    @Sendable func accept(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        _ = try call.requireUser()
        let body = try await decode(call, request)
        var results: [Result<ShareResolution, APIError>] = []
        for item in body.shortGUIDs {
            results.append(await outcome { try await resolution(of: item, call: call, accepting: true) })
        }
        return respond(results, items: body.shortGUIDs, call: call)
    }

    /// What a share link names: JSON for clients, a short page for browsers. Shows no shared data.
    @Sendable func link(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let guid = try context.parameters.require("shortGUID")
        guard let share = try await server.store.share(shortGUID: guid) else {
            throw APIError(.notFound, "no share has this link")
        }
        let database = share.zone.database
        let base = DatabaseCall.baseURL(of: request, server)
        let resolveURL = "\(base)/database/1/\(database.containerID)/\(database.environment.rawValue)/public/records/resolve"
        if request.headers[.accept]?.contains("text/html") == true {
            let page = """
                <!doctype html><html><head><meta charset="utf-8"><title>Shared with you</title></head><body>
                <h1>Shared with you</h1><p>Open this link in the app of <code>\(Self.escaped(database.containerID))</code> to see what was shared.</p>
                </body></html>
                """
            return Response(status: .ok, headers: [.contentType: "text/html; charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("containerIdentifier")
            writer.string(database.containerID)
            writer.key("environment")
            writer.string(database.environment.rawValue)
            writer.key("resolveURL")
            writer.string(resolveURL)
            writer.key("shortGUID")
            writer.string(guid)
            writer.key("url")
            writer.string(ShareRecords.url(shortGUID: guid, baseURL: base))
        })
    }

    // MARK: - Resolving

    /// One resolved link, and what the caller is to it.
    struct ShareResolution: Sendable {
        var share: StoredShare
        var participant: ShareParticipant?
        var rootRecord: Record?
        var owner: Account?
        var isOwner: Bool
    }

    private func resolution(of item: ShortGUIDInput, call: DatabaseCall, accepting: Bool) async throws -> ShareResolution {
        let notFound = APIError(.notFound, "no share has the link \(item.value)")
        guard var share = try await server.store.share(shortGUID: item.value) else { throw notFound }
        let database = share.zone.database
        guard database.containerID == call.authentication.container.id, database.environment == call.authentication.environment else {
            throw notFound
        }
        let user = try await shareUser(call)
        if accepting, let user {
            share = try await server.store.acceptShare(shortGUID: item.value, user: user)
        }
        let details = share.details
        let participant = user.flatMap { details.participant(matching: $0) }
        guard participant != nil || details.publicPermission != .none else {
            throw APIError(.accessDenied, "this share is not for you; ask its owner to add you")
        }
        var root: Record?
        if item.shouldFetchRootRecord ?? false, let rootName = details.rootRecordName {
            root = try await server.store.lookupRecords([rootName], in: share.zone)[rootName]
        }
        let owner = try await server.store.account(containerID: database.containerID, userRecordName: details.ownerRecordName)
        return ShareResolution(
            share: share, participant: participant, rootRecord: root, owner: owner, isOwner: user?.userRecordName == details.ownerRecordName
        )
    }

    /// The signed-in caller as shares know them: record name, email address and phone number.
    private func shareUser(_ call: DatabaseCall) async throws -> ShareUser? {
        guard let user = call.authentication.userRecordName else { return nil }
        let account = try await server.store.account(containerID: call.authentication.container.id, userRecordName: user)
        return ShareUser(userRecordName: user, emailAddress: account?.emailAddress, phoneNumber: account?.phoneNumber)
    }

    private func decode(_ call: DatabaseCall, _ request: Request) async throws -> ShortGUIDsRequest {
        let body = try await call.decode(ShortGUIDsRequest.self, from: request)
        guard body.shortGUIDs.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a request may name at most \(RecordLimits.maximumResults) shortGUIDs")
        }
        return body
    }

    private func outcome(_ body: () async throws -> ShareResolution) async -> Result<ShareResolution, APIError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(APIError(translating: error))
        }
    }

    // MARK: - Writing

    private func respond(_ results: [Result<ShareResolution, APIError>], items: [ShortGUIDInput], call: DatabaseCall) -> Response {
        call.respond(JSONWriter.object(capacity: 2048 * max(1, items.count)) { writer in
            writer.array("results", Array(zip(items, results))) { writer, pair in
                let (item, outcome) = pair
                let shortGUID = ShortGUIDInput(value: item.value, shouldFetchRootRecord: item.shouldFetchRootRecord ?? false)
                switch outcome {
                case .success(let resolution):
                    let database = resolution.share.zone.database
                    ShareLinkResultEntry.result(result(of: resolution, shortGUID: shortGUID, call: call)).write(
                        to: &writer, share: call.rendering(desiredKeys: nil, numbersAsStrings: false, in: database),
                        root: call.rendering(desiredKeys: item.rootRecordDesiredKeys, numbersAsStrings: false, in: database)
                    )
                case .failure(let error):
                    let reason = error.code == .internalError ? "the server failed to resolve the share" : error.reason
                    ShareLinkResultEntry.failure(ShareLinkErrorEntry(shortGUID: shortGUID, serverErrorCode: error.code.rawValue, reason: reason))
                        .write(to: &writer)
                }
            }
        })
    }

    /// A ShortGUID Result: where the share is, what it is, and what the caller is to it.
    private func result(of resolution: ShareResolution, shortGUID: ShortGUIDInput, call: DatabaseCall) -> ShareLinkResult {
        let share = resolution.share
        let details = share.details
        let database = share.zone.database
        let participant = resolution.participant
        return ShareLinkResult(
            containerIdentifier: database.containerID, databaseScope: resolution.isOwner ? .private : .shared,
            environment: database.environment, zoneID: share.zone.wireZoneID, share: share.record,
            rootRecordName: details.rootRecordName, rootRecord: resolution.rootRecord, shortGUID: shortGUID,
            url: ShareRecords.url(shortGUID: details.shortGUID, baseURL: call.baseURL),
            ownerIdentity: UserIdentityEntry(userRecordName: details.ownerRecordName, nameComponents: resolution.owner.map(UsersController.nameComponents(of:))),
            participantPermission: participant?.permission ?? details.publicPermission,
            participantStatus: participant?.acceptanceStatus ?? .invited, participantType: participant?.type ?? .publicUser
        )
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
