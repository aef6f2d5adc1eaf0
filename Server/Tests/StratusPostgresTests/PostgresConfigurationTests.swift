import StratusPostgres
import StratusStore
import Testing

@Suite struct PostgresConfigurationTests {
    @Test("a full URL gives every part, percent-decoded")
    func fullURL() throws {
        let configuration = try PostgresStore.Configuration(url: "postgresql://app%40prod:p%3Ass%2Fw@db.example.com:6543/stratus?sslmode=require", poolSize: 7)
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app@prod")
        #expect(configuration.password == "p:ss/w")
        #expect(configuration.database == "stratus")
        #expect(configuration.tls == .require)
        #expect(configuration.poolSize == 7)
        #expect(!configuration.redactedDescription.contains("p:ss"))
    }

    @Test("the port defaults to 5432, the database to the user, TLS to prefer")
    func defaults() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://stratus@localhost")
        #expect(configuration.port == 5432)
        #expect(configuration.database == "stratus")
        #expect(configuration.password == nil)
        #expect(configuration.tls == .prefer)
    }

    @Test("malformed URLs are refused, saying what is wrong", arguments: [
        ("mysql://u@h/db", "must look like"),
        ("postgres://u@/db", "no host"),
        ("postgres://u@h/db?host=relative/folder", "folder of a Unix socket"),
        ("postgres://u@h/db?port=http", "port number"),
        ("postgres://h/db", "no user"),
        ("postgres://u@h/db?sslmode=sometimes", "sslmode must be one of"),
        ("postgres://u@h/db?timeout=3", "not supported"),
    ])
    func malformed(_ url: String, _ reason: String) {
        #expect {
            try PostgresStore.Configuration(url: url)
        } throws: { error in
            guard let error = error as? StorageError else { return false }
            return error.code == .invalidArgument && error.message.contains(reason)
        }
    }

    @Test("a socket folder in the host parameter connects through the server's Unix socket, as with libpq")
    func socketFolder() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app:secret@/stratus?host=/var/run/postgresql")
        #expect(configuration.host == "/var/run/postgresql")
        #expect(configuration.socketPath == "/var/run/postgresql/.s.PGSQL.5432")
        #expect(configuration.redactedDescription == "postgres://app:***@/stratus?host=/var/run/postgresql/.s.PGSQL.5432")
        let withPort = try PostgresStore.Configuration(url: "postgres://app@ignored:6543/stratus?host=/tmp/")
        #expect(withPort.socketPath == "/tmp/.s.PGSQL.6543")
        let portParameter = try PostgresStore.Configuration(url: "postgres://app@/stratus?host=/tmp&port=7000")
        #expect(portParameter.socketPath == "/tmp/.s.PGSQL.7000")
        #expect(try PostgresStore.Configuration(url: "postgres://app@db.example.com/stratus").socketPath == nil)
    }

    @Test("a pool of no connections is refused")
    func emptyPool() {
        #expect(throws: StorageError.self) { try PostgresStore.Configuration(url: "postgres://u@h/db", poolSize: 0) }
    }
}
