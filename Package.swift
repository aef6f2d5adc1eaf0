// swift-tools-version:6.0
import PackageDescription

// The client package, what an app depends on: the wire model, the StratusKit SDK and its kits. It has no
// dependencies, so an app that adds it resolves and builds nothing else. The server, its command line and every
// test live in the package in `Server/`, which depends on this one.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Stratus",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "StratusModel", targets: ["StratusModel"]),
        .library(name: "StratusKit", targets: ["StratusKit"]),
        .library(name: "StratusMessages", targets: ["StratusMessages"]),
        .library(name: "StratusFlags", targets: ["StratusFlags"]),
        .library(name: "StratusAdmin", targets: ["StratusAdmin"]),
        .library(name: "StratusKitTesting", targets: ["StratusKitTesting"]),
        .library(name: "StratusLocalStore", targets: ["StratusLocalStore"]),
        .library(name: "StratusCloudKit", targets: ["StratusCloudKit"]),
    ],
    targets: [
        // Wire format and domain values. No I/O.
        .target(name: "StratusModel", swiftSettings: swiftSettings),
        // The client SDK, shaped like Apple's CloudKit framework. Talks HTTP through a `Transport`.
        .target(
            name: "StratusKit",
            dependencies: ["StratusModel"],
            swiftSettings: swiftSettings
        ),
        // The system's SQLite library (no package: Debian's libsqlite3-dev, or the Apple SDK's).
        .systemLibrary(
            name: "CStratusSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite3"])]
        ),
        // An app's local database, kept in sync by the sync engine: records, pending changes and the engine's
        // state in one SQLite file, queries over them, and change notifications for the UI.
        .target(
            name: "StratusLocalStore",
            dependencies: ["StratusKit", "CStratusSQLite"],
            swiftSettings: swiftSettings
        ),
        // CloudKit's Swift API, name for name, over StratusKit: an app moves by changing its import.
        .target(
            name: "StratusCloudKit",
            dependencies: ["StratusKit"],
            swiftSettings: swiftSettings
        ),
        // For an app's own tests: a transport that injects the network's and the server's failures.
        .target(
            name: "StratusKitTesting",
            dependencies: ["StratusKit"],
            swiftSettings: swiftSettings
        ),
        // In-app messages published in the public database, shown once, in the user's language.
        .target(
            name: "StratusMessages",
            dependencies: ["StratusKit"],
            resources: [.copy("Resources/Messages.ckdb")],
            swiftSettings: swiftSettings
        ),
        // The admin API for setup tools and scripts: containers, schemas (and the kits' schemas beside an app's),
        // deploys, roles and server-to-server keys.
        .target(
            name: "StratusAdmin",
            dependencies: ["StratusModel"],
            swiftSettings: swiftSettings
        ),
        // Feature switches with targeting and rollouts, and curated content, kept in the public database.
        .target(
            name: "StratusFlags",
            dependencies: ["StratusKit"],
            resources: [.copy("Resources/Flags.ckdb")],
            swiftSettings: swiftSettings
        ),
    ]
)
