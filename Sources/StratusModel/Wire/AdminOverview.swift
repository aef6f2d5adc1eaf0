/// `GET /admin/1/overview`: the server at a glance for the console's landing page, over the containers the caller
/// holds a role in. "Today" is the UTC day.
public struct ServerOverview: Sendable, Hashable, Codable {
    /// The start of today, in milliseconds since 1970.
    public var day: Int64
    public var requestsToday: Int64
    public var errorsToday: Int64
    /// Users who made a request today.
    public var activeUsersToday: Int64
    /// Bytes at the latest measurement.
    public var publicBytes: Int64
    public var privateBytes: Int64
    /// When storage was last measured; `nil` before the first measurement.
    public var storageMeasuredAt: Int64?
    public var backups: Backups
    /// Webhook endpoints whose deliveries fail, or that were turned off after failing.
    public var failingWebhooks: [FailingWebhook]
    /// Messages waiting in the mail queue for their first or next attempt.
    public var mailWaiting: Int
    /// Whether mail can go out at all (an SMTP server is configured).
    public var smtpConfigured: Bool
    public var containers: [ContainerFigures]

    public struct Backups: Sendable, Hashable, Codable {
        /// Whether scheduled backups to a bucket are set up.
        public var configured: Bool
        /// When the newest backup in the bucket, or made by this node, was taken.
        public var lastBackupAt: Int64?
        /// `running`, `finished` or `failed`: this node's latest run.
        public var latestRunState: String?
        /// Why the latest run failed, or why the bucket could not be listed.
        public var problem: String?

        public init(configured: Bool, lastBackupAt: Int64? = nil, latestRunState: String? = nil, problem: String? = nil) {
            self.configured = configured
            self.lastBackupAt = lastBackupAt
            self.latestRunState = latestRunState
            self.problem = problem
        }
    }

    public struct FailingWebhook: Sendable, Hashable, Codable {
        public var containerID: String
        public var id: String
        public var url: String
        public var enabled: Bool
        /// Milliseconds since 1970.
        public var failingSince: Int64?
        public var disabledReason: String?

        public init(containerID: String, id: String, url: String, enabled: Bool, failingSince: Int64?, disabledReason: String?) {
            self.containerID = containerID
            self.id = id
            self.url = url
            self.enabled = enabled
            self.failingSince = failingSince
            self.disabledReason = disabledReason
        }
    }

    /// One container's figures for today, both environments together.
    public struct ContainerFigures: Sendable, Hashable, Codable {
        public var containerID: String
        public var requestsToday: Int64
        public var errorsToday: Int64
        public var activeUsersToday: Int64
        public var mailWaiting: Int

        public init(containerID: String, requestsToday: Int64, errorsToday: Int64, activeUsersToday: Int64, mailWaiting: Int) {
            self.containerID = containerID
            self.requestsToday = requestsToday
            self.errorsToday = errorsToday
            self.activeUsersToday = activeUsersToday
            self.mailWaiting = mailWaiting
        }
    }

    public init(
        day: Int64, requestsToday: Int64, errorsToday: Int64, activeUsersToday: Int64, publicBytes: Int64, privateBytes: Int64,
        storageMeasuredAt: Int64?, backups: Backups, failingWebhooks: [FailingWebhook], mailWaiting: Int, smtpConfigured: Bool,
        containers: [ContainerFigures]
    ) {
        self.day = day
        self.requestsToday = requestsToday
        self.errorsToday = errorsToday
        self.activeUsersToday = activeUsersToday
        self.publicBytes = publicBytes
        self.privateBytes = privateBytes
        self.storageMeasuredAt = storageMeasuredAt
        self.backups = backups
        self.failingWebhooks = failingWebhooks
        self.mailWaiting = mailWaiting
        self.smtpConfigured = smtpConfigured
        self.containers = containers
    }
}
