import Foundation
import NIOSSL
import PostgresNIO
import StratusStore

extension PostgresStore {
    /// Where the PostgreSQL store's database is and how it connects, read from a URL:
    /// `postgres://USER:PASSWORD@HOST:PORT/DBNAME?sslmode=require` (or `postgresql://`), or, for a server on the
    /// same machine, through its Unix socket: `postgres://USER:PASSWORD@/DBNAME?host=/var/run/postgresql`.
    public struct Configuration: Sendable, Equatable {
        /// How the connection uses TLS, as libpq's `sslmode` names it.
        public enum TLSMode: String, Sendable, CaseIterable {
            /// Plain TCP.
            case disable
            /// TLS when the server offers it, plain TCP otherwise. The default, as in libpq.
            case prefer
            /// TLS, without checking the server's certificate.
            case require
            /// TLS, checking the certificate against the system's roots and the host name.
            case verifyFull = "verify-full"
        }

        /// A host name or address; or, starting with `/`, the folder of the server's Unix socket (as in libpq).
        public var host: String
        /// The TCP port; with a socket folder, the number in the socket's name (`.s.PGSQL.PORT`).
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        public var tls: TLSMode
        /// The most connections the store opens at once for requests and background work (``defaultPoolSize``). One more
        /// connection listens for other nodes' events.
        /// Connections a store opens unless told otherwise.
        public static let defaultPoolSize = 10
        public var poolSize: Int
        /// How long a request waits for a connection before it is answered `503` with `retryAfter`: the database is
        /// down, or every connection is busy. Default 5 seconds.
        public var connectionWait: Duration = .seconds(5)
        /// How often a node reads the store events without a notification, in case one was lost. Default 1 second.
        public var eventPollInterval: Duration = .seconds(1)

        public init(
            host: String, port: Int = 5432, username: String, password: String? = nil, database: String,
            tls: TLSMode = .prefer, poolSize: Int = Configuration.defaultPoolSize
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
            self.poolSize = poolSize
        }

        /// Reads a `postgres://` or `postgresql://` URL. The database defaults to the user's name, the port to 5432;
        /// user and password may be percent-encoded. The query parameters understood are `sslmode`, `host` (a
        /// socket folder, which replaces the URL's host) and `port`.
        /// - Throws: ``StorageError/Code/invalidArgument``, saying what is wrong with the URL.
        public init(url text: String, poolSize: Int = Configuration.defaultPoolSize) throws(StorageError) {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
                ["postgres", "postgresql"].contains(scheme)
            else {
                throw StorageError(.invalidArgument, "the database URL must look like postgres://USER:PASSWORD@HOST:PORT/DBNAME")
            }
            var host = components.host ?? ""
            var port = components.port ?? 5432
            guard let username = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !username.isEmpty else {
                throw StorageError(.invalidArgument, "the database URL names no user (postgres://USER@HOST/DBNAME)")
            }
            guard poolSize > 0 else {
                throw StorageError(.invalidArgument, "the database pool size must be at least 1")
            }
            var database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            if database.isEmpty { database = username }
            var tls = TLSMode.prefer
            for item in components.queryItems ?? [] {
                if item.name == "host" {
                    guard let folder = item.value, folder.hasPrefix("/") else {
                        throw StorageError(.invalidArgument, "the database URL's host parameter must be the folder of a Unix socket, such as /var/run/postgresql")
                    }
                    host = folder
                    continue
                }
                if item.name == "port" {
                    guard let value = item.value.flatMap({ Int($0) }), (1...65535).contains(value) else {
                        throw StorageError(.invalidArgument, "the database URL's port parameter must be a port number")
                    }
                    port = value
                    continue
                }
                guard item.name == "sslmode" else {
                    throw StorageError(.invalidArgument, "the database URL's parameter \(item.name) is not supported (only sslmode, host and port)")
                }
                guard let mode = TLSMode(rawValue: item.value ?? "") else {
                    throw StorageError(
                        .invalidArgument, "sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                tls = mode
            }
            guard !host.isEmpty else {
                throw StorageError(.invalidArgument, "the database URL names no host (postgres://USER@HOST/DBNAME, or ?host=/socket/folder)")
            }
            self.init(
                host: host, port: port, username: username,
                password: components.percentEncodedPassword?.removingPercentEncoding, database: database, tls: tls, poolSize: poolSize
            )
        }

        /// The URL without its password, for logs and messages.
        public var redactedDescription: String {
            let user = "\(username)\(password == nil ? "" : ":***")"
            if let socketPath { return "postgres://\(user)@/\(database)?host=\(socketPath)" }
            return "postgres://\(user)@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
        }

        /// The server's Unix socket when ``host`` is a socket folder: `FOLDER/.s.PGSQL.PORT`, as libpq names it.
        public var socketPath: String? {
            guard host.hasPrefix("/") else { return nil }
            return (host.hasSuffix("/") ? host : host + "/") + ".s.PGSQL.\(port)"
        }

        /// postgres-nio's configuration of one connection to the database: for a first try that reports the
        /// server's own refusal (a wrong password, a database that does not exist) where the pool only says it cannot
        /// connect, and for tools beside the store.
        public func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable:
                connectionTLS = .disable
            case .prefer, .require:
                var context = TLSConfiguration.makeClientConfiguration()
                context.certificateVerification = .none
                let sslContext = try NIOSSLContext(configuration: context)
                connectionTLS = tls == .prefer ? .prefer(sslContext) : .require(sslContext)
            case .verifyFull:
                connectionTLS = .require(try NIOSSLContext(configuration: TLSConfiguration.makeClientConfiguration()))
            }
            var configuration = socketPath.map {
                PostgresConnection.Configuration(unixSocketPath: $0, username: username, password: password, database: database)
            } ?? PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: connectionTLS
            )
            configuration.options.connectTimeout = .seconds(4)
            return configuration
        }

        /// postgres-nio's configuration of the client's pool.
        func clientConfiguration() -> PostgresClient.Configuration {
            let clientTLS: PostgresClient.Configuration.TLS
            switch tls {
            case .disable:
                clientTLS = .disable
            case .prefer:
                var context = TLSConfiguration.makeClientConfiguration()
                context.certificateVerification = .none
                clientTLS = .prefer(context)
            case .require:
                var context = TLSConfiguration.makeClientConfiguration()
                context.certificateVerification = .none
                clientTLS = .require(context)
            case .verifyFull:
                clientTLS = .require(TLSConfiguration.makeClientConfiguration())
            }
            var configuration = socketPath.map {
                PostgresClient.Configuration(unixSocketPath: $0, username: username, password: password, database: database)
            } ?? PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: clientTLS
            )
            configuration.options.maximumConnections = poolSize + 1
            configuration.options.minimumConnections = 1
            configuration.options.connectTimeout = .seconds(4)
            return configuration
        }
    }
}
