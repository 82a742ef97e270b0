import Foundation
import IOTestSupport
import PrefetchDemoKit
import PrefetchKit
import Testing
import PrefetchToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// A clock that counts its sleeps, to tell a wait that sleeps from one that spins.
struct CountingClock: Clock {
    typealias Instant = ContinuousClock.Instant
    let sleeps = Locked(0)
    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { ContinuousClock().minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        sleeps.withLock { $0 += 1 }
        try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
    }
}

/// Findings 7 and 8 of issue 12: `prefetch-demo --serve`'s child server process: cancelled waits
/// end at once without spinning, and the child never outlives the demo.
@Suite("ServerProcess", .serialized, .timeLimit(.minutes(TestTime.minutes(2))))
struct ServerProcessTests {
    /// A script that writes its pid to `pidFile` and then `body` (it ignores its arguments).
    func script(in directory: URL, pidFile: URL, body: String) throws -> URL {
        let url = directory.appendingPathComponent("fake-server")
        try "#!/bin/sh\necho $$ > '\(pidFile.path)'\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    func withTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("server-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// The pid a fake server wrote, waiting (bounded) for the file.
    func pid(in file: URL) async throws -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now + TestTime.scaled(.seconds(10))
        while clock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return pid
            }
            try await clock.sleep(for: .milliseconds(10))
        }
        throw DemoTestError("the fake server wrote no pid to \(file.path)")
    }

    @Test func aCancelledStartStopsWaitingAndStopsTheChild() async throws {
        try await withTemporaryDirectory { directory in
            // Given a child that never prints its "listening on" line
            let pidFile = directory.appendingPathComponent("pid")
            let silent = try script(in: directory, pidFile: pidFile, body: "exec sleep 60")
            let start = Task { try await ServerProcess.start(executable: silent, arguments: []) }
            let child = try await pid(in: pidFile)
            // When the task waiting for it is cancelled
            start.cancel()
            let result = await start.result
            // Then the wait ends with CancellationError (not a timeout 10 s later), and the child is gone
            #expect(throws: CancellationError.self) { _ = try result.get() }
            #expect(await ProcessID.waitUntilGone(child, timeout: TestTime.scaled(.seconds(5))), "pid \(child) still runs")
        }
    }

    @Test func stoppingFromACancelledTaskSleepsInsteadOfSpinning() async throws {
        // Given a child that ignores SIGTERM, so stopping it waits the whole grace period
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' TERM; while :; do sleep 0.05; done"]
        try process.run()
        let clock = CountingClock()
        // When a task that is already cancelled stops it, with a 0.5 s grace
        let stop = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await ServerProcess.stop(process, grace: .milliseconds(500), clock: clock)
        }
        await stop.value
        // Then the child is gone (SIGKILL after the grace), and the wait slept in steps:
        // 10 ms steps make about 50 sleeps; a spinning loop makes tens of thousands
        #expect(!process.isRunning)
        let sleeps = clock.sleeps.withLock { $0 }
        #expect(sleeps < 1_000, "\(sleeps) sleeps in a 0.5 s grace period")
    }

    @Test func aKilledDemoTakesItsServerWithIt() async throws {
        try await withTemporaryDirectory { directory in
            // Given a served run meant to last a minute
            let arguments = ["--serve", "--plain", "--script", "steady", "--duration", "60", "--items", "2000",
                             "--disk-cache", directory.appendingPathComponent("cache.sqlite").path]
            let demo = try BoundedProcess(try DemoProcess.executable, arguments)
            let line = try await demo.waitForStandardError(containing: "listening on", timeout: TestTime.scaled(.seconds(30)))
            let server = try DemoNetworkTests.startedServer(line)
            #expect(ProcessID.isAlive(server.pid))
            // When the demo is killed with SIGKILL: no signal handler, no clean-up runs
            kill(demo.pid, SIGKILL)
            _ = try await demo.finish(timeout: TestTime.scaled(.seconds(20)))
            // Then its server exits by itself within a bounded wait
            let gone = await ProcessID.waitUntilGone(server.pid, timeout: TestTime.scaled(.seconds(10)))
            if !gone { kill(server.pid, SIGKILL) }
            #expect(gone, "prefetch-server (pid \(server.pid)) outlived its SIGKILLed prefetch-demo")
        }
    }

    @Test func theSoakFlagsInjectFaultsAndRestartTheServerMidRun() async throws {
        try await withTemporaryDirectory { directory in
            // Given a served run with the soak's faults and a restart after 2 s. The run lasts 5 s
            // scaled like the waits: under ThreadSanitizer starting the server again takes
            // seconds, and a restart still under way when the run ends is cancelled unreported.
            let arguments = ["--serve", "--server-faults", "--server-restart-after", "2", "--plain", "--json", "--script", "fling",
                             "--duration", "\(Int((5 * TestTime.scale).rounded(.up)))", "--items", "2000", "--cold",
                             "--disk-cache", directory.appendingPathComponent("cache.sqlite").path]
            let output = try await BoundedProcess.run(try DemoProcess.executable, arguments, timeout: TestTime.scaled(.seconds(60)))
            // Then the server ran with the faults, was killed and started again on its port, and the run still ends well
            #expect(output.status == 0, "exit \(output.status): \(output.stderr)")
            #expect(output.stderr.contains("--error-rate 0.08 --reset-rate 0.05"), "\(output.stderr)")
            let restart = try #require(output.stderr.split(separator: "\n").first { $0.contains("killed prefetch-server and started it again") },
                                       "no restart line: \(output.stderr)")
            let first = try DemoNetworkTests.startedServer(output.stderr)
            #expect(restart.hasSuffix("on http://127.0.0.1:\(first.port)"))
            let summary = try DemoNetworkTests.summary(output)
            #expect(try #require(summary["displayed"] as? Double) > 0)
            #expect(DemoNetworkTests.acceptsConnections(port: first.port) == false)
        }
    }

    @Test(arguments: [
        (["--server-faults"], "--server-faults only applies with --serve"),
        (["--server-restart-after", "5"], "--server-restart-after only applies with --serve"),
        (["--serve", "--server-restart-after", "0"], "--server-restart-after must be from 0.1 to 3600 seconds; got 0"),
    ])
    func badSoakFlagsAreRefused(arguments: [String], message: String) async throws {
        let output = try await BoundedProcess.run(try DemoProcess.executable, arguments, timeout: .seconds(30))
        #expect(output.status != 0)
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }
}
