import Foundation
import IOTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding 8 of issue 12: a `prefetch-server` started with `--parent-pid` dies with its parent,
/// however the parent dies.
@Suite("prefetch-server dies with its parent", .serialized, .timeLimit(.minutes(TestTime.minutes(1))))
struct OrphanTests {
    @Test("SIGKILL the parent: the server exits by itself within a bounded wait")
    func serverExitsWhenItsParentIsKilled() async throws {
        // Given a parent that starts prefetch-server in the background with its own pid, then
        // becomes `sleep` (same pid, so still the server's parent)
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: "/bin/sh")
        parent.arguments = ["-c", "\"$1\" --port 0 --items 100 --parent-pid $$ 2>/dev/null & echo \"pid $!\"; exec sleep 120",
                            "sh", BuiltProducts.executable("prefetch-server").path]
        let stdout = Pipe()
        parent.standardOutput = stdout
        parent.standardError = FileHandle.nullDevice
        try parent.run()
        defer { if parent.isRunning { kill(parent.processIdentifier, SIGKILL) } }
        // Both lines, within a bound: the server's pid, and the server's "listening on" line
        let lines = await OutputReader(stdout.fileHandleForReading).waitForLines(timeout: TestTime.scaled(.seconds(20))) { lines in
            lines.contains { $0.hasPrefix("pid ") } && lines.contains { $0.hasPrefix("listening on ") }
        }
        let pid = try #require(lines.first { $0.hasPrefix("pid ") }.flatMap { Int32($0.dropFirst(4)) }, "no server pid in \(lines)")
        defer { if ProcessID.isAlive(pid) { kill(pid, SIGKILL) } }
        try #require(lines.contains { $0.hasPrefix("listening on ") },
                     "prefetch-server did not listen (is --parent-pid supported?): \(lines)")
        #expect(ProcessID.isAlive(pid))
        // When the parent is killed with SIGKILL (no chance to clean up)
        kill(parent.processIdentifier, SIGKILL)
        parent.waitUntilExit()
        // Then the server notices and exits on its own, within a bounded wait
        let gone = await ProcessID.waitUntilGone(pid, timeout: TestTime.scaled(.seconds(10)))
        #expect(gone, "prefetch-server (pid \(pid)) outlived its SIGKILLed parent")
    }

    @Test("a --parent-pid that is not the server's parent makes it exit at once")
    func wrongParentExitsAtOnce() async throws {
        let process = Process()
        process.executableURL = BuiltProducts.executable("prefetch-server")
        // pid 1 is never the parent of a process this test starts
        process.arguments = ["--port", "0", "--parent-pid", "1"]
        process.standardOutput = FileHandle.nullDevice
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        let errors = stderr.fileHandleForReading
        let message = try await onBlockingThread { String(decoding: errors.readDataToEndOfFile(), as: UTF8.self) }
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(message.contains("parent process 1"), "\(message)")
    }
}
