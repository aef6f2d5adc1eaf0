import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import StratusModel
import StratusServices
import StratusStore

/// A signed-in user claiming what they had on CloudKit: the public records `stratus import cloudkit` copied name
/// their creators by CloudKit user record names; the user proves which one is theirs with a CloudKit web auth token,
/// which the source server (``AccountSettings/cloudKitSource``) answers `users/caller` for.
extension AccountsController {
    func registerCloudKitClaim(on group: RouterGroup<StratusRequestContext>) {
        group.post("account/claim/cloudkit", use: claimCloudKitIdentity)
        group.get("account/claim/cloudkit", use: cloudKitClaim)
    }

    /// `POST account/claim/cloudkit` (signed in) with ``CloudKitClaimRequest``: asks the source who the token's user is,
    /// then gives the account that user's public records in this environment (and the imported `Users` record's fields),
    /// once. Answers ``CloudKitClaimResponse``.
    /// - Throws: `AUTHENTICATION_FAILED` when the source does not accept the token (forged, expired, of another
    ///   container); `EXISTS` when that CloudKit user was claimed already, or the account claimed one;
    ///   `BAD_REQUEST` when the container names no source; `TRY_AGAIN_LATER` when the source cannot be reached.
    @Sendable func claimCloudKitIdentity(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(CloudKitClaimRequest.self, from: request, limit: RequestLimits.formBody)
        guard let source = authentication.container.accountSettings.cloudKitSource else {
            throw APIError.badRequest("this container names no CloudKit source to claim from (account settings: cloudKitSource)")
        }
        guard !body.cloudKitWebAuthToken.isEmpty, body.cloudKitWebAuthToken.utf8.count <= RequestLimits.tokenBody else {
            throw APIError.badRequest("cloudKitWebAuthToken is the user's CloudKit web auth token")
        }
        let cloudKitUser = try await Self.cloudKitUser(holding: body.cloudKitWebAuthToken, at: source, client: .shared)
        let claim: CloudKitClaim
        do {
            claim = try await server.store.claimCloudKitUser(
                cloudKitUser, for: account.userRecordName, containerID: account.containerID, environment: authentication.environment,
                now: ServerClock.now(), changeTag: Tokens.randomHex(bytes: 8)
            )
        } catch let error as StorageError where error.code == .alreadyExists {
            throw APIError(.exists, "this CloudKit user was claimed already, or this account claimed another")
        }
        return try JSONResponse.make(encoding: Self.response(claim))
    }

    /// `GET account/claim/cloudkit` (signed in): the account's claim, or `404`.
    @Sendable func cloudKitClaim(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        guard let claim = try await server.store.cloudKitClaim(containerID: account.containerID, userRecordName: account.userRecordName) else {
            throw APIError(.notFound, "this account claimed no CloudKit user")
        }
        return try JSONResponse.make(encoding: Self.response(claim))
    }

    private static func response(_ claim: CloudKitClaim) -> CloudKitClaimResponse {
        CloudKitClaimResponse(
            cloudKitUserRecordName: claim.cloudKitUserRecordName, records: claim.records, usersRecordFields: claim.usersRecordFields,
            claimedAt: claim.claimedAt
        )
    }

    /// The user record name `users/caller` at the source answers for the web auth token.
    static func cloudKitUser(holding token: String, at source: AccountSettings.CloudKitSource, client: HTTPClient) async throws -> String {
        var components = URLComponents(string: source.url.hasSuffix("/") ? String(source.url.dropLast()) : source.url)
        let container = source.containerID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
        components?.path += "/database/1/\(container ?? source.containerID)/\(source.environment)/public/users/caller"
        components?.queryItems = [URLQueryItem(name: "ckAPIToken", value: source.apiToken), URLQueryItem(name: "ckWebAuthToken", value: token)]
        // `+` is a space in a query as servers read it; tokens hold them.
        let query = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = query
        guard let url = components?.url?.absoluteString else { throw APIError.badRequest("cloudKitSource.url is not a URL") }
        let status: UInt
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            status = response.status.code
            body = try await response.body.collect(upTo: RequestLimits.upstreamAnswer)
        } catch {
            throw APIError(.tryAgainLater, "the CloudKit source could not be reached: \(error)")
        }
        switch status {
        case 200:
            guard let answer = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let user = answer["userRecordName"] as? String, !user.isEmpty
            else { throw APIError(.tryAgainLater, "the CloudKit source answered users/caller without a userRecordName") }
            return user
        case 400..<500:
            throw APIError(.authenticationFailed, "the CloudKit source does not accept this web auth token (\(status)): it is forged, expired or of another container")
        default:
            throw APIError(.tryAgainLater, "the CloudKit source answered \(status)")
        }
    }
}
