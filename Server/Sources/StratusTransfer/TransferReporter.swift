import Foundation
import StratusAdmin
import StratusModel
import Synchronization

/// Tells a server how an import or export into or out of one of its containers is going, for its console
/// (`PUT /admin/1/{container}/transfers/{id}`). A server that does not take a report never stops the transfer: it
/// is said once, and the transfer goes on.
final class TransferReporter: Sendable {
    let connection: OperatorConnection
    let container: String
    let id: String
    /// `import cloudkit`, `export`, `import archive`.
    let kind: String
    /// Where the data comes from or goes to.
    let peer: String
    /// Milliseconds since 1970.
    let startedAt: Int64
    let output: @Sendable (String) -> Void
    private let started = ContinuousClock.now
    private let refused = Mutex(false)

    init(connection: OperatorConnection, container: String, id: String? = nil, kind: String, peer: String, startedAt: Int64? = nil, output: @escaping @Sendable (String) -> Void) {
        self.connection = connection
        self.container = container
        self.id = id ?? Self.newID(kind)
        self.kind = kind
        self.peer = peer
        self.startedAt = startedAt ?? Int64(Date().timeIntervalSince1970 * 1000)
        self.output = output
    }

    /// A new transfer id, like `export-1a2b3c4d`.
    static func newID(_ kind: String) -> String {
        kind.split(separator: " ").first.map(String.init)! + "-" + UUID().uuidString.prefix(8).lowercased()
    }

    /// Reports the transfer's state; the rate and time left come from the records done in this run.
    func report(
        _ state: TransferStatus.State, done: Int, total: Int?, bytes: Int64, doneThisRun: Int? = nil, message: String? = nil
    ) async {
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 && (doneThisRun ?? done) > 0 ? Double(doneThisRun ?? done) / seconds : nil
        let status = TransferStatus(
            id: id, containerID: container, kind: kind, peer: peer, state: state, message: message, recordsDone: done, recordsTotal: total,
            bytes: bytes, recordsPerSecond: rate,
            secondsLeft: state == .running ? both(total, rate).map { Int((Double(max(0, $0 - done)) / $1).rounded()) } : nil,
            startedAt: startedAt
        )
        let refusal: String?
        do {
            let answer = try await HTTP.send(
                "PUT", connection.baseURL + "/admin/1/\(AdminClient.escaped(container))/transfers/\(AdminClient.escaped(id))",
                body: try JSONEncoder().encode(status), headers: ["Authorization": "Bearer \(connection.adminKey)", "Content-Type": "application/json"]
            )
            refusal = answer.status == 200 ? nil : HTTP.describe(answer)
        } catch {
            refusal = error.localizedDescription
        }
        guard let refusal else { return }
        let saidBefore = refused.withLock { said in
            defer { said = true }
            return said
        }
        if !saidBefore {
            output("the server's console is not told of the progress: \(refusal)")
        }
    }
}

private func both<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
