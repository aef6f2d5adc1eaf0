import Foundation
import HTTPTypes
import Hummingbird
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// `POST /functions/1/{container}/{environment}/{name}`: calls a `callable` function with the request's body, as
/// the signed-in user (or nobody, with the API token only). The function's answer is the response; an answer with
/// a `serverErrorCode` is answered as that CloudKit error.
struct FunctionsController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        router.post("functions/1/:container/:environment/:name", use: call)
    }

    private struct Refusal: Decodable {
        var serverErrorCode: String
        var reason: String?
    }

    @Sendable func call(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let containerID = try context.parameters.require("container")
        let name = try context.parameters.require("name")
        let authentication = try await server.authenticator.authenticate(
            request, containerID: containerID, environment: try context.parameters.require("environment"), query: request.uri.queryParameters
        )
        guard let binding = try await server.functions.binding(containerID: containerID, environment: authentication.environment, name: name),
            binding.trigger == .callable
        else {
            throw APIError(.notFound, "\(containerID) has no callable function \(name) in \(authentication.environment.rawValue)")
        }
        let body = try await RequestBody.read(request, limit: server.configuration.maximumRequestBytes)
        let bytes = Array(body.readableBytesView)
        if !bytes.isEmpty { _ = try RequestBody.decode(JSONValue.self, from: bytes) }
        var roles: Set<String> = []
        if let user = authentication.userRecordName {
            roles = try await server.authenticator.roles(of: user, containerID: containerID, environment: authentication.environment)
        }
        let host = RecordsHost(
            server: server, container: authentication.container, environment: authentication.environment,
            identity: FunctionIdentity.of(binding, caller: authentication.userRecordName, callerRoles: roles),
            baseURL: DatabaseCall.baseURL(of: request, server), depth: 0
        )
        let result: FunctionResult
        do {
            result = try await server.functions.run(
                binding, input: FunctionInputs.call(binding, caller: authentication.userRecordName, body: bytes), host: host
            )
        } catch {
            throw APIError(.internalError, "the function \(name) failed: \(error.error.message)")
        }
        guard (try? RequestBody.decode(JSONValue.self, from: result.output)) != nil else {
            throw APIError(.internalError, "the function \(name) answered what is not JSON")
        }
        if let refusal = try? RequestBody.decode(Refusal.self, from: result.output) {
            let code = ServerErrorCode(rawValue: refusal.serverErrorCode)
            throw APIError(code == .internalError ? .badRequest : code, refusal.reason ?? "the function \(name) refused the call")
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        if let token = authentication.webAuthToken { headers[.cloudKitWebAuthToken] = token }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: result.output)))
    }
}
