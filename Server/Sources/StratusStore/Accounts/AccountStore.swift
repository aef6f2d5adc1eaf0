import Foundation
import StratusModel

/// Storage for containers, accounts, sessions and server secrets.
///
/// ```swift
/// try await store.createContainer(ContainerInfo(id: "iCloud.com.example.App", apiToken: token, createdAt: now))
/// let container = try await store.container(id: "iCloud.com.example.App")
/// ```
public protocol AccountStore: Sendable {
    /// Creates a container.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the ID is taken.
    func createContainer(_ container: ContainerInfo) async throws
    /// The container with that ID, if any.
    func container(id: String) async throws -> ContainerInfo?
    /// Every container, by ID.
    func containers() async throws -> [ContainerInfo]
    /// Replaces a container's API token; the old one stops working.
    /// - Throws: ``StorageError/Code/notFound`` for an unknown container.
    func setAPIToken(_ apiToken: String, containerID: String) async throws
    /// Replaces a container's account settings, for every node at once.
    /// - Throws: ``StorageError/Code/notFound`` for an unknown container.
    func setAccountSettings(_ settings: AccountSettings, containerID: String) async throws

    /// Creates an account, and its `Users` record in both environments' public databases, with its first passkey
    /// or provider identity when it has no password.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the email address (or the passkey, or the identity) is
    ///   taken in that container.
    func createAccount(_ account: Account, passkey: Passkey?, identity: AccountIdentity?) async throws
    /// The account with that (lowercased) email address in a container.
    func account(containerID: String, emailAddress: String) async throws -> Account?
    /// The account with that user record name in a container.
    func account(containerID: String, userRecordName: String) async throws -> Account?

    /// A page of a container's accounts, by email address, whose email address, names or user record name
    /// contain `search` (any case) when it is given.
    func accounts(containerID: String, matching search: String?, offset: Int, limit: Int) async throws -> [Account]

    /// The account with that phone number (as ``Account/phoneNumber`` keeps it) in a container.
    func account(containerID: String, phoneNumber: String) async throws -> Account?
    /// Lets other users discover an account, or stops them.
    /// - Throws: ``StorageError/Code/notFound`` when there is no such account.
    func setDiscoverable(_ discoverable: Bool, containerID: String, userRecordName: String) async throws

    func createSession(_ session: Session) async throws
    func session(id: String) async throws -> Session?
    /// Removes a session; removing a missing one is not an error.
    func deleteSession(id: String) async throws
    /// An account's unexpired sessions at `now`, newest first.
    func sessions(containerID: String, userRecordName: String, now: Int64) async throws -> [Session]
    /// Ends every session of an account but `keeping`, for every node at once; returns the IDs ended.
    @discardableResult
    func endSessions(containerID: String, userRecordName: String, keeping: String?) async throws -> [String]
    /// Notes that a request used a session at `time` (bookkeeping: no event, no transaction of its own).
    func touchSession(id: String, at time: Int64) async throws

    /// Makes a change to an account in one transaction, ending its sessions where the change says so.
    /// - Returns: the account as changed.
    /// - Throws: ``StorageError/Code/notFound`` when there is no such account.
    @discardableResult
    func changeAccount(containerID: String, userRecordName: String, change: AccountChange) async throws -> Account

    /// Stores a code and queues the mail that carries it, in one transaction; the account's earlier codes of the
    /// same purpose stop working, and expired codes are swept.
    func createAccountCode(_ code: AccountCode, mail: OutgoingMail) async throws
    /// The live code of an account with that purpose and code hash (codes are short: the account narrows them).
    func accountCode(containerID: String, userRecordName: String, purpose: AccountCode.Purpose, now: Int64) async throws -> AccountCode?
    /// The live code whose link carries a token with that hash.
    func accountCode(containerID: String, linkHash: String, now: Int64) async throws -> AccountCode?
    /// Counts a wrong guess against a code; a code guessed wrong `limit` times is deleted.
    func recordFailedCodeAttempt(id: String, limit: Int) async throws
    /// Starts deleting an account: it is disabled, undiscoverable and marked as being deleted, its codes go and its
    /// sessions end, for every node at once. ``AccountDeletion`` does the rest.
    /// - Throws: ``StorageError/Code/notFound`` when there is no such account.
    func beginAccountDeletion(containerID: String, userRecordName: String) async throws -> Account
    /// Accounts whose deletion started and has not finished, oldest first.
    func accountsBeingDeleted(limit: Int) async throws -> [Account]
    /// Erases, in one transaction, what a user holds in one environment: their private database (zones, records,
    /// asset holds, shares, which their participants lose), their participation in others' shares, their
    /// subscriptions, push devices, notifications and roles.
    func erasePrivateData(containerID: String, userRecordName: String, environment: Environment) async throws
    /// Names of live public records a user created in one environment, in order, after `after` when given, up to `limit`.
    func publicRecordNames(createdBy userRecordName: String, containerID: String, environment: Environment, after: String?, limit: Int) async throws
        -> [String]
    /// Removes an account being deleted, with its codes and any session left: its address is free again.
    func finishAccountDeletion(containerID: String, userRecordName: String) async throws

    /// Uses a code up and makes `change` to its account in one transaction: a code works once, even when two
    /// requests redeem it at the same moment.
    /// - Returns: the account as changed.
    /// - Throws: ``StorageError/Code/notFound`` when the code was used, expired or replaced.
    @discardableResult
    func redeemAccountCode(id: String, now: Int64, change: AccountChange) async throws -> Account

    /// Keeps a challenge until ``redeemPasskeyChallenge(_:containerID:now:)`` uses it; expired ones are swept.
    func createPasskeyChallenge(_ challenge: PasskeyChallenge) async throws
    /// Uses a live challenge up and returns it; `nil` when it was used, has expired, or belongs to another container.
    func redeemPasskeyChallenge(_ challenge: String, containerID: String, now: Int64) async throws -> PasskeyChallenge?
    /// Registers a passkey to its account.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the credential is registered already in the container,
    ///   ``StorageError/Code/notFound`` when there is no such account.
    func addPasskey(_ passkey: Passkey) async throws
    /// The passkey with that credential ID in a container.
    func passkey(containerID: String, credentialID: String) async throws -> Passkey?
    /// An account's passkeys, oldest first.
    func passkeys(containerID: String, userRecordName: String) async throws -> [Passkey]
    /// Notes a sign-in with a passkey: its new signature counter and the time.
    /// - Throws: ``StorageError/Code/conflict`` when the counter did not move forward (a cloned authenticator), or
    ///   ``StorageError/Code/notFound`` for a passkey removed meanwhile.
    func usePasskey(containerID: String, credentialID: String, signCount: Int64, at time: Int64) async throws
    /// Removes one of an account's passkeys.
    /// - Throws: ``StorageError/Code/notFound`` when the account has no such passkey.
    func removePasskey(containerID: String, userRecordName: String, credentialID: String) async throws

    /// Gives an account the public records a user of the CloudKit container its data was imported from created or
    /// last modified (their creator and modifier become the account), and, when the account's own `Users` record
    /// holds no fields, the imported `Users` record's fields; in one transaction, once per CloudKit user and account.
    /// - Parameter changeTag: the account's `Users` record's new change tag, should its fields change.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the CloudKit user was claimed, or the account claimed one;
    ///   ``StorageError/Code/notFound`` when the account does not exist.
    func claimCloudKitUser(
        _ cloudKitUserRecordName: String, for userRecordName: String, containerID: String, environment: Environment, now: Int64, changeTag: String
    ) async throws -> CloudKitClaim
    /// The account's claim, if it made one.
    func cloudKitClaim(containerID: String, userRecordName: String) async throws -> CloudKitClaim?
    /// The identity a provider's user has in a container.
    func identity(containerID: String, provider: String, subject: String) async throws -> AccountIdentity?
    /// An account's provider identities, oldest first.
    func identities(containerID: String, userRecordName: String) async throws -> [AccountIdentity]
    /// Links a provider identity to its account (which stops being anonymous).
    /// - Throws: ``StorageError/Code/alreadyExists`` when the identity belongs to an account already,
    ///   ``StorageError/Code/notFound`` when there is no such account.
    func addIdentity(_ identity: AccountIdentity) async throws
    /// Keeps what the provider said at a sign-in (address, whether verified, a new sealed refresh token) and when.
    func updateIdentity(_ identity: AccountIdentity) async throws
    /// Unlinks a provider identity from its account.
    /// - Throws: ``StorageError/Code/notFound`` when the account has no such identity.
    func removeIdentity(containerID: String, userRecordName: String, provider: String, subject: String) async throws
    /// How many of a container's accounts use each way in: `password`, `passkey`, `anonymous`, and each provider by
    /// name (only ways some account uses are listed).
    func signInMethodCounts(containerID: String) async throws -> [String: Int]
    /// Anonymous accounts of a container made before `time` whose sessions were not used since, oldest first.
    func anonymousAccounts(containerID: String, inactiveSince time: Int64, limit: Int) async throws -> [Account]

    /// A server secret, created from `makeSecret` the first time it is asked for, the same ever after
    /// (and on every node that shares the store).
    func secret(named name: String, makeSecret: @Sendable () -> Data) async throws -> Data

    /// Counts one failed sign-in (or another counted attempt, such as a request for mail) under each of `keys` at
    /// `now` (milliseconds since 1970), for every node that shares the store. A key whose last count is older than
    /// `window` milliseconds starts again at one; keys of different windows share the table.
    func recordSignInFailures(keys: [String], now: Int64, window: Int64) async throws
    /// The failed sign-ins counted under each of `keys` whose last failure is within `window` of `now`.
    func signInFailures(keys: [String], now: Int64, window: Int64) async throws -> [String: SignInFailures]
    /// Forgets the failed sign-ins counted under `key`.
    func forgetSignInFailures(key: String) async throws
}
