// swift-tools-version:6.1
import PackageDescription

// The server package: the store and its backends, the HTTP server, the console, the `stratus` command, the
// examples and every test. The client package (the model, the SDK and its kits) is the repository's root package.

/// The client package's libraries this package builds on.
let model = Target.Dependency.product(name: "StratusModel", package: "Stratus")
let kit = Target.Dependency.product(name: "StratusKit", package: "Stratus")
let messagesKit = Target.Dependency.product(name: "StratusMessages", package: "Stratus")
let flagsKit = Target.Dependency.product(name: "StratusFlags", package: "Stratus")
let adminClient = Target.Dependency.product(name: "StratusAdmin", package: "Stratus")
let kitTesting = Target.Dependency.product(name: "StratusKitTesting", package: "Stratus")
let localStore = Target.Dependency.product(name: "StratusLocalStore", package: "Stratus")
/// Spans of requests, the engine, SQL and object storage (recorded only when traces are exported).
let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Server",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .executable(name: "stratus", targets: ["stratus"]),
        .library(name: "StratusStore", targets: ["StratusStore"]),
        .library(name: "StratusSQLite", targets: ["StratusSQLite"]),
        .library(name: "StratusPostgres", targets: ["StratusPostgres"]),
        .library(name: "StratusBlobs", targets: ["StratusBlobs"]),
        .library(name: "StratusServer", targets: ["StratusServer"]),
        .library(name: "StratusTestSupport", targets: ["StratusTestSupport"]),
    ],
    dependencies: [
        // The client package at the repository's root: the wire model, the SDK and its kits.
        .package(name: "Stratus", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swiftwasm/WasmKit", from: "0.4.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Traces exported over OTLP/HTTP only (its gRPC exporter is left out).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The documentation's Swift examples, compiled as written (generated from README.md and docs/ by the plugin).
        .executableTarget(name: "SnippetExtractor", swiftSettings: swiftSettings),
        .plugin(name: "DocsSnippetsPlugin", capability: .buildTool(), dependencies: ["SnippetExtractor"]),
        .target(name: "DocsSnippets", dependencies: [kit, messagesKit, flagsKit, adminClient, kitTesting, localStore, .product(name: "StratusCloudKit", package: "Stratus")], plugins: ["DocsSnippetsPlugin"]),
        // The storage contract every backend implements.
        .target(
            name: "StratusStore",
            dependencies: [model, tracing, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // One conformance suite that every backend runs.
        .target(
            name: "StratusStoreTesting",
            dependencies: ["StratusStore", model, kitTesting, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // The embedded default backend.
        .target(
            name: "StratusSQLite",
            dependencies: [
                "StratusStore", model, tracing,
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C interface, to read a row's cells without going through GRDB's values.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The backend for apps that outgrow one machine: PostgreSQL, through postgres-nio.
        .target(
            name: "StratusPostgres",
            dependencies: [
                "StratusStore", model, tracing,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Asset file stores: a local folder, and S3-compatible object storage.
        .target(
            name: "StratusBlobs",
            dependencies: [
                "StratusStore", tracing,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // Functions: WebAssembly modules run with WasmKit, with limits and a host interface.
        .target(
            name: "StratusFunctions",
            dependencies: [
                .product(name: "WasmKit", package: "WasmKit"),
                .product(name: "WasmParser", package: "WasmKit"),
            ],
            swiftSettings: swiftSettings
        ),
        // The web console's files, served by the server at /console.
        .target(
            name: "StratusConsole",
            resources: [.copy("Resources/console")],
            swiftSettings: swiftSettings
        ),
        // The features under the HTTP layer (accounts, quotas, webhooks, notifications, telemetry, jobs, secrets):
        // no HTTP server in it; each feature in its own folder, throwing ServiceError.
        .target(
            name: "StratusServices",
            dependencies: [
                "StratusStore", model, "StratusMail", "StratusFunctions",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                tracing,
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: swiftSettings
        ),
        // The HTTP API as a library.
        .target(
            name: "StratusServer",
            dependencies: [
                "StratusStore", "StratusServices", model, "StratusConsole", "StratusMail", "StratusArchive", "StratusFunctions",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                tracing,
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: swiftSettings
        ),
        // Mail through an SMTP server (STARTTLS or implicit TLS, AUTH PLAIN or LOGIN).
        .target(
            name: "StratusMail",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // A client of the admin API, for tests, examples and the benchmark's set-up.
        // Test servers over any backend (a store factory), for the HTTP, SDK and end-to-end tests.
        .target(
            name: "StratusTestSupport",
            dependencies: [
                "StratusServer", "StratusServices", "StratusSQLite", "StratusPostgres", "StratusBlobs", "StratusStore", "StratusStoreTesting", adminClient,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The archive format of exports and backups: files in a folder or a tar, and the lines they hold. A leaf: the
        // server writes a user's export with it without linking a client of its own API.
        .target(
            name: "StratusArchive",
            dependencies: [model, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Moving data in and out: `stratus import cloudkit`.
        .target(
            name: "StratusTransfer",
            dependencies: ["StratusArchive", model, adminClient, .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Load generator behind `stratus bench`.
        .target(
            name: "StratusBench",
            dependencies: [model, adminClient, kit, localStore, .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // The `stratus` executable: composition root and operator commands.
        .executableTarget(
            name: "stratus",
            dependencies: [
                "StratusServer", "StratusServices", "StratusSQLite", "StratusPostgres", "StratusBlobs", "StratusStore", model, "StratusBench", adminClient, "StratusTransfer", "StratusArchive", "StratusMail",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Examples: run them against a local `stratus serve` (see the README).
        .target(name: "StratusExampleSupport", dependencies: [kit, adminClient], path: "Examples/ExampleSupport", swiftSettings: swiftSettings),
        .executableTarget(
            name: "fatchat", dependencies: [kit, "StratusExampleSupport"], path: "Examples/fatchat", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "messages", dependencies: [messagesKit, "StratusExampleSupport"], path: "Examples/messages", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "flags", dependencies: [flagsKit, "StratusExampleSupport"], path: "Examples/flags", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "notes", dependencies: [localStore, "StratusExampleSupport"], path: "Examples/notes", swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusModelTests",
            dependencies: [model, "StratusStoreTesting"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusStoreTests",
            dependencies: ["StratusStore", model],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusSQLiteTests",
            dependencies: ["StratusSQLite", "StratusStoreTesting", "StratusStore", model],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusPostgresTests",
            dependencies: ["StratusPostgres", "StratusStoreTesting", "StratusStore", model],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusFunctionsTests",
            dependencies: ["StratusFunctions", "StratusTestSupport", "StratusStoreTesting", "StratusBench"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusMailTests",
            dependencies: ["StratusMail", "StratusStoreTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusBlobsTests",
            dependencies: ["StratusBlobs", "StratusStore", "StratusStoreTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusServerTests",
            dependencies: [
                "StratusServer", "StratusServices", "StratusSQLite", "StratusBlobs", "StratusStore", "StratusMail", "StratusTransfer", "StratusArchive", model, "StratusStoreTesting",
                "StratusTestSupport", adminClient,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusKitTests",
            dependencies: [
                kit, messagesKit, flagsKit, kitTesting, localStore, "StratusServer", "StratusServices", "StratusStore", "StratusMail", model,
                "StratusTestSupport", "StratusStoreTesting", adminClient,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "StratusCloudKit", package: "Stratus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "StratusEndToEndTests",
            dependencies: [
                "stratus", "fatchat", "messages", "flags", model, "StratusBlobs", "StratusStore", "StratusStoreTesting",
                "StratusTestSupport", adminClient,
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
