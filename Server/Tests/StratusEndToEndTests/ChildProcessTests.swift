import Foundation
import StratusStoreTesting
import Testing

@Suite struct ChildProcessTests {
    @Test("a child's output, errors, exit status and directory come back; signals show as 128 + the signal")
    func statusAndOutput() async throws {
        let (status, output) = try await ChildProcess.run("/bin/sh", ["-c", "echo out; echo err >&2; pwd; exit 3"], directory: "/tmp")
        #expect(status == 3)
        #expect(output == "out\nerr\n/tmp\n")

        let sleeper = try ChildProcess("sleep", ["30"])
        #expect(sleeper.isRunning)
        sleeper.killNow()
        #expect(!sleeper.isRunning)
        #expect(sleeper.waitForExit() == 128 + SIGKILL)
        #expect(throws: ChildProcessError.self) { try ChildProcess("stratus-no-such-program", []) }
    }

    @Test("a child holds no descriptor of the test process beyond its standard three, and sees added variables")
    func descriptorsAndEnvironment() async throws {
        let held = try ChildProcess("sleep", ["30"], output: .pipe)
        defer { held.killNow() }
        let (_, listing) = try await ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd; echo \"[$STRATUS_CHILD_TEST]\""], environment: ["STRATUS_CHILD_TEST": "seen"])
        let lines = listing.split(separator: "\n")
        #expect(lines.last == "[seen]")
        // The shell's own 0, 1 and 2, and at most one descriptor `ls` opens on the listing itself.
        #expect(lines.dropLast().compactMap { Int($0) }.filter { $0 > 2 }.count <= 1, "\(listing)")
    }
}
