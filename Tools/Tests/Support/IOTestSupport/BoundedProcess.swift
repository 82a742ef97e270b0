import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose output is read as it comes (by two ``OutputReader``s) and whose every
/// wait has a deadline; on a missed deadline it is stopped, so no test leaves it behind and no
/// test blocks a thread of Swift's cooperative pool waiting for it.
public final class BoundedProcess: Sendable {
    /// How a finished process ended and everything it wrote.
    public struct Output: Sendable {
        /// The exit status, or the signal number for a process that a signal ended.
        public var status: Int32
        /// Standard output, as UTF-8.
        public var stdout: String
        /// Standard error, as UTF-8.
        public var stderr: String
    }

    private let process: Process
    private let out: OutputReader
    private let err: OutputReader

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments`, standard input empty, both outputs piped.
    public init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        out = OutputReader(stdout.fileHandleForReading)
        err = OutputReader(stderr.fileHandleForReading)
    }

    /// Runs `executable` to its end, or stops it after `timeout` (times
    /// `PREFETCH_TEST_TIME_SCALE`) and throws.
    public static func run(_ executable: URL, _ arguments: [String], timeout: Duration) async throws -> Output {
        try await BoundedProcess(executable, arguments).finish(timeout: timeout)
    }

    /// Waits until standard error holds `text`; returns it so far. Stops the process and throws
    /// after `timeout` (times `PREFETCH_TEST_TIME_SCALE`) or when it exits first.
    public func waitForStandardError(containing text: String, timeout: Duration) async throws -> String {
        let timeout = TestTime.scaled(timeout)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let soFar = err.text
            if soFar.contains(text) { return soFar }
            if clock.now >= deadline || !process.isRunning {
                await stop()
                throw BoundedProcessError("no \"\(text)\" on standard error within \(timeout): \(soFar)")
            }
            try await clock.sleep(for: .milliseconds(20))
        }
    }

    /// Waits for the exit and the end of both pipes. Stops the process and throws after `timeout`
    /// (times `PREFETCH_TEST_TIME_SCALE`).
    public func finish(timeout: Duration) async throws -> Output {
        let timeout = TestTime.scaled(timeout)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning || !out.isClosed || !err.isClosed {
            if clock.now >= deadline {
                await stop()
                throw BoundedProcessError("\(process.executableURL?.lastPathComponent ?? "the process") did not finish within \(timeout): \(err.text)")
            }
            try await clock.sleep(for: .milliseconds(20))
        }
        return Output(status: process.terminationStatus, stdout: out.text, stderr: err.text)
    }

    /// SIGTERM (a demo then stops its server), and SIGKILL if it is still there 5 seconds later.
    private func stop() async {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        while process.isRunning, clock.now < deadline {
            do { try await clock.sleep(for: .milliseconds(20)) } catch { break }   // cancelled: go straight to SIGKILL
        }
        if process.isRunning { kill(pid, SIGKILL) }
    }
}

/// A ``BoundedProcess`` wait that ran out of time, with what the process wrote.
public struct BoundedProcessError: Error, CustomStringConvertible {
    /// What was waited for and what the process had written.
    public var description: String
    init(_ description: String) { self.description = description }
}
