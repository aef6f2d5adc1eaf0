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
        ("postgres:///db", "no host"),
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

    @Test("a pool of no connections is refused")
    func emptyPool() {
        #expect(throws: StorageError.self) { try PostgresStore.Configuration(url: "postgres://u@h/db", poolSize: 0) }
    }
}
