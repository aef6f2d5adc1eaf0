import StratusServices
import ArgumentParser
import StratusModel
import StratusServer
import StratusStore

/// The admin commands on a data folder no server runs on: they open its store directly.
struct LocalAdmin: AdminBackend {
    let store: any Store

    func createContainer(_ id: String) async throws -> (containerID: String, apiToken: String) {
        let container = try await AdminOperations.createContainer(id: id, store: store)
        return (container.id, container.apiToken)
    }

    func containers() async throws -> [(id: String, apiToken: String)] {
        try await store.containers().map { ($0.id, $0.apiToken) }
    }

    func schemaText(container: String, environment: Environment) async throws -> String {
        try await AdminOperations.schemaText(containerID: container, environment: environment, store: store)
    }

    func importSchema(_ text: String, container: String, force: Bool) async throws -> [SchemaChangeLine] {
        try await AdminOperations.importSchema(text, containerID: container, environment: .development, force: force, store: store).map(\.line)
    }

    func schemaDiff(container: String) async throws -> [SchemaChangeLine] {
        try await AdminOperations.schemaDiff(containerID: container, store: store).map(\.line)
    }

    func deploy(container: String, dryRun: Bool) async throws -> (changes: [SchemaChangeLine], deployed: Bool) {
        let deployment = try await AdminOperations.deploy(containerID: container, dryRun: dryRun, store: store)
        return (deployment.changes.map(\.line), deployment.deployed)
    }

    func roles(of user: String, container: String, environment: Environment) async throws -> [String] {
        try await AdminOperations.roles(of: user, containerID: container, environment: environment, store: store)
    }

    func setRoles(_ roles: [String], of user: String, container: String, environment: Environment) async throws -> [String] {
        try await AdminOperations.setRoles(roles, of: user, containerID: container, environment: environment, store: store)
    }

    func users(container: String, search: String?, offset: Int, limit: Int) async throws -> [UserLine] {
        try await store.accounts(containerID: container, matching: search, offset: offset, limit: limit).filter { !$0.isDeveloper }.map {
            UserLine(
                userRecordName: $0.userRecordName, emailAddress: $0.emailAddress, emailVerified: $0.isEmailVerified, disabled: $0.isDisabled,
                passkeys: $0.passkeyCount
            )
        }
    }

    func setDisabled(_ disabled: Bool, user: String, container: String) async throws {
        try await store.changeAccount(containerID: container, userRecordName: user, change: .disabled(disabled))
    }

    func removeSecondFactors(user: String, container: String) async throws {
        try await store.changeAccount(containerID: container, userRecordName: user, change: .removeSecondFactors)
    }

    func endSessions(user: String, container: String) async throws -> Int {
        try await store.endSessions(containerID: container, userRecordName: user, keeping: nil).count
    }

    func deleteUser(_ user: String, container: String) async throws {
        try await AdminOperations.deleteUser(user, containerID: container, store: store)
    }

    func sendReset(user: String, container: String) async throws -> Bool {
        throw ValidationError("a reset is mailed by a running server (with --smtp-url): start `stratus serve` and run this again")
    }

    func createKey(publicKeyPEM: String, role: String?, container: String) async throws -> String {
        try await AdminOperations.createServerKey(publicKeyPEM: publicKeyPEM, role: role, containerID: container, store: store).id
    }

    func keys(container: String) async throws -> [(id: String, role: String?)] {
        try await store.serverKeys(containerID: container).map { ($0.id, $0.role) }
    }

    func revokeKey(_ keyID: String, container: String) async throws {
        try await AdminOperations.revokeServerKey(keyID, containerID: container, store: store)
    }
}

extension SchemaChange {
    var line: SchemaChangeLine { SchemaChangeLine(description: description, isAdditive: isAdditive) }
}
