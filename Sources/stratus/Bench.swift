import ArgumentParser

/// `stratus bench`: drives a running server over loopback HTTP.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Benchmark a running server.")

    @Option(help: "The server's URL.")
    var url: String = "http://127.0.0.1:8080"

    func run() async throws {
        throw ValidationError("bench is not built yet")
    }
}
