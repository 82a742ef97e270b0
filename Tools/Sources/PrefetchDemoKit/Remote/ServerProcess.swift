import Dispatch
import Foundation
import PrefetchKit
import PrefetchToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `prefetch-server` as a child process of `prefetch-demo --serve`, so the demo itself never
/// links the server's Hummingbird and NIO.
///
/// ``start(arguments:shouldStop:)`` runs the `prefetch-server` found next to the running
/// executable with `--port 0`, reads the `listening on http://127.0.0.1:PORT` line it prints
/// first, and returns. ``terminate()`` stops it (SIGTERM, then SIGKILL after two seconds) and
/// waits for it; the demo calls it on every way out: the end of the run, an error, Ctrl-C.
/// Where the demo cannot (SIGKILL, a crash), the child exits by itself: it is started with
/// `--parent-pid`, and watches for its parent to go.
/// Its standard error (one log line per request) is read continuously, so the child never
/// blocks on a full pipe, and the last lines are kept for error messages.
package final class ServerProcess: Sendable {
    /// The server's base URL, from its first line (the same after a ``restart()``).
    package let url: URL
    /// The child's process id (a new one after a ``restart()``).
    package var pid: Int32 { current.withLock { $0.process.processIdentifier } }
    private let current: Locked<Child>
    private let executable: URL
    private let arguments: [String]

    /// One run of the child: the process and the tail of its log.
    private struct Child: Sendable {
        var process: Process
        var log: LogTail
    }

    /// How long the server has to print its first line.
    package static let startDeadline = Duration.seconds(10)
    /// How long SIGTERM has before SIGKILL.
    package static let stopGrace = Duration.seconds(2)

    private init(url: URL, child: Child, executable: URL, arguments: [String]) {
        self.url = url
        self.current = Locked(child)
        self.executable = executable
        self.arguments = arguments
    }

    /// The `prefetch-server` executable next to the running one.
    ///
    /// - Throws: ``DemoError`` naming the path looked at, with the command that builds it.
    package static func executable() throws -> URL {
        let running: URL = {
            let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            if exe.path != "/proc/self/exe", FileManager.default.fileExists(atPath: exe.path) { return exe }
            return Bundle.main.executableURL?.resolvingSymlinksInPath()
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        }()
        let server = running.deletingLastPathComponent().appendingPathComponent("prefetch-server")
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            throw DemoError("--serve needs the prefetch-server executable next to prefetch-demo, at \(server.path), and it is not there: run `swift build --package-path Tools --product prefetch-server` (from the repository root) first")
        }
        return server
    }

    /// Starts `prefetch-server --port 0` plus `arguments` and waits for its `listening on` line.
    ///
    /// - Parameter shouldStop: polled while waiting (Ctrl-C); the child is stopped if it says so.
    /// - Throws: ``DemoError`` when the executable is missing, the child exits or stays silent
    ///   for ``startDeadline`` (with its last log lines), or `CancellationError` when stopped.
    package static func start(
        executable: URL? = nil, arguments: [String], shouldStop: @Sendable () -> Bool = { false }
    ) async throws -> ServerProcess {
        let executable = try executable ?? Self.executable()
        let (url, child) = try await launch(executable, port: 0, arguments: arguments, shouldStop: shouldStop)
        return ServerProcess(url: url, child: child, executable: executable, arguments: arguments)
    }

    /// Kills the server with SIGKILL (as in a crash: connections in flight are cut) and starts it
    /// again with the same arguments on the same port; returns once it listens again.
    ///
    /// - Throws: ``DemoError`` when the new child does not listen (for example the port was taken meanwhile).
    package func restart() async throws {
        let old = current.withLock { $0.process }
        if old.isRunning { kill(old.processIdentifier, SIGKILL) }
        await Self.stop(old, grace: .zero)
        let (_, child) = try await Self.launch(executable, port: url.port ?? 0, arguments: arguments, shouldStop: { false })
        current.withLock { $0 = child }
    }

    private static func launch(
        _ executable: URL, port: Int, arguments: [String], shouldStop: @Sendable () -> Bool
    ) async throws -> (URL, Child) {
        let process = Process()
        process.executableURL = executable
        // --parent-pid: the server exits by itself if this process dies without stopping it (SIGKILL, a crash).
        process.arguments = ["--port", String(port)] + arguments + ["--parent-pid", String(getpid())]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw DemoError("could not start \(executable.path)", cause: error)
        }
        let log = LogTail()
        let firstLine = Locked<FirstLine>(.waiting)
        DispatchQueue.global().async {
            let line = stdout.fileHandleForReading.readLine()
            firstLine.withLock { $0 = line.map(FirstLine.line) ?? .closed }
        }
        DispatchQueue.global().async {
            let handle = stderr.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                log.append(chunk)
            }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + startDeadline
        func fail(_ message: String) async -> DemoError {
            await stop(process)
            let tail = log.lines.suffix(5).joined(separator: "\n  ")
            return DemoError(tail.isEmpty ? message : "\(message); its last log lines:\n  \(tail)")
        }
        while true {
            switch firstLine.withLock({ $0 }) {
            case .line(let line):
                let prefix = "listening on "
                guard line.hasPrefix(prefix), let url = URL(string: String(line.dropFirst(prefix.count))) else {
                    throw await fail("prefetch-server printed \"\(line)\" where \"listening on http://HOST:PORT\" was expected")
                }
                return (url, Child(process: process, log: log))
            case .closed:
                throw await fail("prefetch-server exited before it listened")
            case .waiting:
                if shouldStop() || Task.isCancelled {
                    await stop(process)
                    throw CancellationError()
                }
                if clock.now >= deadline {
                    throw await fail("prefetch-server printed no \"listening on\" line within \(startDeadline)")
                }
                do {
                    try await clock.sleep(for: .milliseconds(10))
                } catch {
                    // Cancelled: stop waiting at once, and take the child down with us.
                    await stop(process)
                    throw CancellationError()
                }
            }
        }
    }

    /// Stops the server and waits until it has exited. Safe to call twice.
    package func terminate() async {
        await Self.stop(current.withLock { $0.process })
    }

    /// Whether the child is still running.
    package var isRunning: Bool { current.withLock { $0.process.isRunning } }

    /// Sends SIGTERM, waits up to `grace` for the exit, then sends SIGKILL and waits for it.
    ///
    /// It runs to the end even when the calling task is cancelled (stopping a child is clean-up),
    /// and its waits sleep on `clock` in 10 ms steps: a cancelled task never turns them into a spin.
    package static func stop(
        _ process: Process, grace: Duration = stopGrace, clock: some Clock<Duration> = ContinuousClock()
    ) async {
        guard process.isRunning else { return }
        // A detached task does not inherit the caller's cancellation, so its sleeps really sleep.
        await Task.detached {
            let pid = process.processIdentifier
            kill(pid, SIGTERM)
            let deadline = clock.now.advanced(by: grace)
            while process.isRunning, clock.now < deadline {
                do { try await clock.sleep(for: .milliseconds(10)) } catch { break }
            }
            if process.isRunning {
                kill(pid, SIGKILL)
                while process.isRunning {
                    do { try await clock.sleep(for: .milliseconds(10)) } catch { break }
                }
            }
        }.value
    }

    private enum FirstLine: Sendable {
        case waiting
        case line(String)
        case closed
    }
}

/// The last few kilobytes a child wrote to standard error.
private final class LogTail: Sendable {
    private let state = Locked(Data())

    func append(_ chunk: Data) {
        state.withLock { data in
            data.append(chunk)
            if data.count > 8_192 { data.removeFirst(data.count - 8_192) }
        }
    }

    var lines: [String] {
        String(decoding: state.withLock { $0 }, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

extension FileHandle {
    /// Reads up to the next newline or the end of the file (blocking); nil at the end.
    fileprivate func readLine() -> String? {
        var bytes: [UInt8] = []
        while let byte = try? read(upToCount: 1)?.first {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
