import Foundation
import IOTestSupport
import PrefetchDemoKit
import PrefetchKit
import Testing
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
}
