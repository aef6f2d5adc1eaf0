import Foundation

/// The repository's files, for tests that read them: scripts, documentation, configurations.
public enum Repository {
    /// The repository's root folder (the client package's), found from this file's place in it.
    public static let root = URL(fileURLWithPath: #filePath)  // Server/Sources/StratusStoreTesting/Repository.swift
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of `relative`, a path from the repository's root.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }
}
