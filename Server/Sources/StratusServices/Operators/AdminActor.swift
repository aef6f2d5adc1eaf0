import StratusStore

/// Who acts through the admin API or the console: the holder of the admin key, or a person with an operator
/// account and their roles per container.
package enum AdminActor: Sendable {
    case adminKey
    case person(OperatorAccount, roles: [String: OperatorRole])

    /// As the audit log names them.
    package var name: String {
        switch self {
        case .adminKey: "admin key"
        case .person(let account, _): account.emailAddress
        }
    }

    /// The holder of the admin key, or an operator who is an administrator: may do anything anywhere.
    package var isAdministrator: Bool {
        switch self {
        case .adminKey: true
        case .person(let account, _): account.isAdministrator
        }
    }

    /// What the actor may do in a container; `nil` when nothing.
    package func role(in containerID: String) -> OperatorRole? {
        switch self {
        case .adminKey: .owner
        case .person(let account, let roles): account.isAdministrator ? .owner : roles[containerID]
        }
    }
}
