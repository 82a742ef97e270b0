import Foundation
import PrefetchKit
import PrefetchDemoKit
import PrefetchSimulation
import IOTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `prefetch-demo --serve` and `--source`: the built demo starting the built `prefetch-server`
/// as a child process on 127.0.0.1, loading pages and thumbnails from it through the disk cache.
///
/// These runs are real I/O in real time, so every wait is bounded by a deadline, and the
/// assertions are about what the run did (keys, counts, cold against warm), never about how fast.
@Suite("prefetch-demo over a real server", .serialized, .timeLimit(.minutes(TestTime.minutes(3))))
struct DemoNetworkTests {
    static let summaryKeys: Set<String> = CLITests.keys.union(["source", "diskCache", "diskHits", "networkLoads", "pageLoads", "loadsFailed", "bytesReceived"])

    /// A steady run (four seconds unless told) from a 2,000-item server with a small latency.
    static func serveArguments(diskCache: URL, latencyMs: Int = 20, seconds: Int = 4) -> [String] {
        ["--serve", "--plain", "--json", "--script", "steady", "--duration", String(seconds), "--items", "2000",
         "--server-latency-ms", String(latencyMs), "--disk-cache", diskCache.path]
    }

    @Test func aServedRunReportsItsFiguresAndLeavesNoServerBehind() async throws {
        try await withTemporaryDirectory { directory in
            // Given a fresh disk cache
            let cache = directory.appendingPathComponent("cache.sqlite")
            // When the demo serves its own data for a steady run
            let output = try await BoundedProcess.run(try DemoProcess.executable, Self.serveArguments(diskCache: cache), timeout: .seconds(60))
            // Then it exits 0 with one JSON object holding the summary and the network's figures
            try #require(output.status == 0, "exit \(output.status): \(output.stderr)")
            let summary = try Self.summary(output)
            #expect(Set(summary.keys) == Self.summaryKeys)
            #expect(try #require(summary["displayed"] as? Double) > 0)
            #expect(try #require(summary["networkLoads"] as? Double) > 0)
            #expect(try #require(summary["pageLoads"] as? Double) >= 1)
            #expect(try #require(summary["bytesReceived"] as? Double) > 0)
            // The bench's key counts the same bytes, up to the end of the run
            let onWire = try #require(summary["bytesOnWire"] as? Double)
            #expect(onWire > 0 && onWire <= (summary["bytesReceived"] as? Double ?? 0))
            #expect(summary["diskCache"] as? String == cache.path)
            // And the server it started is gone: its port refuses connections, its pid is free
            let server = try Self.startedServer(output.stderr)
            #expect(summary["source"] as? String == "http://127.0.0.1:\(server.port)")
            #expect(Self.acceptsConnections(port: server.port) == false)
            #expect(kill(server.pid, 0) == -1 && errno == ESRCH, "prefetch-server (pid \(server.pid)) is still running")
        }
    }

    @Test func withAServerBandwidthTheSummaryReportsTheLinksUse() async throws {
        try await withTemporaryDirectory { directory in
            // Given a server whose responses share 2 Mbit/s
            let cache = directory.appendingPathComponent("cache.sqlite")
            let arguments = Self.serveArguments(diskCache: cache, seconds: 3) + ["--cold", "--server-bandwidth", "2mbit"]
            let output = try await BoundedProcess.run(try DemoProcess.executable, arguments, timeout: .seconds(60))
            try #require(output.status == 0, "exit \(output.status): \(output.stderr)")
            #expect(output.stderr.contains("--server-bandwidth 250000"), "\(output.stderr)")
            // Then the summary has the bytes received, the budget, and the share of it they used
            let summary = try Self.summary(output)
            #expect(Set(summary.keys) == Self.summaryKeys.union(["serverBandwidth"]))
            #expect(summary["serverBandwidth"] as? Double == 250_000)
            let bytes = try #require(summary["bytesReceived"] as? Double)
            let use = try #require(summary["linkUtilisation"] as? Double)
            #expect(bytes > 0)
            // The link cannot carry more than its rate (a little over, for the first page before the run's clock starts).
            #expect(use > 0 && use <= 1.25, "link use \(use)")
        }
    }

    @Test func aWarmDiskCacheIsReadierAndLoadsLessFromTheNetwork() async throws {
        try await withTemporaryDirectory { directory in
            // Given one disk cache file, emptied for the first run
            let cache = directory.appendingPathComponent("cache.sqlite")
            // When a steady run goes cold for 4 s, then warm over its first 2 s only. The scroll
            // offset is a function of wall-clock time, so the warm run's path is the first half of
            // the cold run's whatever the machine's speed (under ThreadSanitizer a warm run as long
            // as the cold one could outrun it and ask the network for more).
            let coldRun = try await BoundedProcess.run(try DemoProcess.executable,
                                                       Self.serveArguments(diskCache: cache, latencyMs: 120, seconds: 4) + ["--cold"], timeout: .seconds(60))
            let warmRun = try await BoundedProcess.run(try DemoProcess.executable,
                                                       Self.serveArguments(diskCache: cache, latencyMs: 120, seconds: 2), timeout: .seconds(60))
            try #require(coldRun.status == 0, "cold run: exit \(coldRun.status): \(coldRun.stderr)")
            try #require(warmRun.status == 0, "warm run: exit \(warmRun.status): \(warmRun.stderr)")
            let cold = try Self.summary(coldRun), warm = try Self.summary(warmRun)
            func number(_ summary: [String: Any], _ key: String) throws -> Double { try #require(summary[key] as? Double) }
            // Then the cold run hit nothing on disk, the warm one did
            #expect(try number(cold, "diskHits") == 0)
            #expect(try number(warm, "diskHits") > 0)
            // And the warm run was at least as ready, with fewer thumbnail requests
            #expect(try number(warm, "displayReadyRate") >= number(cold, "displayReadyRate"))
            #expect(try number(warm, "networkLoads") < number(cold, "networkLoads"),
                    "warm \(warm["networkLoads"] ?? "-") network loads, cold \(cold["networkLoads"] ?? "-")")
        }
    }

    /// `--record` over `--serve`: the trace has the layout the demo showed, the feed's total (the
    /// server's default 100,000 items), not the settings' 1,000, so its offsets lie in its content;
    /// it loads back through the reader and replays as `prefetch-bench run --trace` replays it.
    @MainActor @Test func aSessionRecordedOverAServerHasTheFeedsItemCountAndLoadsBackAndReplays() async throws {
        // (A directory of its own: the suite's helper takes a closure that cannot leave the main actor.)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-demo-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Given the built prefetch-server with its default feed, and the demo's default settings
        let executable = try DemoProcess.executable.deletingLastPathComponent().appendingPathComponent("prefetch-server")
        let server = try await ServerProcess.start(executable: executable, arguments: [])
        let settings = DemoSettings()
        let trace = directory.appendingPathComponent("session.json")
        let total: Int
        do {
            let remote = try await ServerBackend.open(
                baseURL: server.url, diskCache: directory.appendingPathComponent("cache.sqlite"), cold: true, settings: settings)
            total = remote.models.count
            // When a short session drags, jumps to the last item and flings back, recorded every
            // frame the way the interactive run records it (on frame times of its own: the offsets
            // do not depend on the wall clock)
            let recorder = InteractiveRun.recorder(writing: trace, settings: settings, backend: remote)
            var gestures = GestureDriver(gestures: [.drag(speed: 2_000, duration: 0.2), .jump(item: total - 1), .fling(velocity: -3_000)])
            for frame in 1...45 {
                let t = Double(frame) / 30
                try gestures.input(to: remote.app.view, at: t, frameDuration: 1.0 / 30)
                remote.app.step(to: t)
                recorder.record(remote.app.view, at: t)
                await remote.frameEnded()
            }
            try recorder.write(to: trace)
            await remote.close()
        } catch {
            await server.terminate()
            throw error
        }
        await server.terminate()
        // Then the trace's layout has the feed's total, and its offsets reach far past what a
        // 1,000-item layout holds
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: trace)) as? [String: Any])
        let layout = try #require(object["layout"] as? [String: Any])
        #expect(total == 100_000)
        #expect((layout["itemCount"] as? NSNumber)?.intValue == total)
        let offsets = try #require(object["samples"] as? [[Any]]).compactMap { ($0[1] as? NSNumber)?.doubleValue }
        #expect((offsets.max() ?? 0) > 1_000_000)
        // And it loads back through the reader, which checks every sample's offset, and replays
        let scenario = try TraceFile.load(from: trace)
        let result = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive))
        #expect(result.displayed > 0)
    }

    @Test func ctrlCStopsTheServerToo() async throws {
        try await withTemporaryDirectory { directory in
            // Given a served run meant to last 20 seconds
            let arguments = ["--serve", "--plain", "--script", "steady", "--duration", "20", "--items", "2000",
                             "--disk-cache", directory.appendingPathComponent("cache.sqlite").path]
            let process = try BoundedProcess(try DemoProcess.executable, arguments)
            // When it has started its server and gets SIGINT (what Ctrl-C sends)
            let line = try await process.waitForStandardError(containing: "listening on", timeout: .seconds(30))
            let server = try Self.startedServer(line)
            kill(process.pid, SIGINT)
            let output = try await process.finish(timeout: .seconds(20))
            // Then it exits 130 after stopping its server
            #expect(output.status == 130, "exit \(output.status): \(output.stderr)")
            #expect(Self.acceptsConnections(port: server.port) == false)
            #expect(kill(server.pid, 0) == -1 && errno == ESRCH, "prefetch-server (pid \(server.pid)) is still running")
        }
    }

    @Test func withoutTheServerExecutableServeSaysHowToBuildIt() async throws {
        try await withTemporaryDirectory { directory in
            // Given a prefetch-demo with no prefetch-server next to it
            let lonely = directory.appendingPathComponent("prefetch-demo")
            let built = try DemoProcess.executable
            do { try FileManager.default.linkItem(at: built, to: lonely) } catch { try FileManager.default.copyItem(at: built, to: lonely) }
            // When it is asked to serve
            let output = try await BoundedProcess.run(lonely, ["--serve", "--plain", "--duration", "1"], timeout: .seconds(30))
            // Then it fails and names the missing file and the command that builds it
            #expect(output.status != 0)
            #expect(output.stderr.contains(directory.appendingPathComponent("prefetch-server").path), "\(output.stderr)")
            #expect(output.stderr.contains("swift build --package-path Tools --product prefetch-server"), "\(output.stderr)")
        }
    }

    @Test(arguments: [
        (["--source", "not a url"], ["--source", "not a url", "http or https"]),
        (["--source", "ftp://127.0.0.1/feed"], ["--source", "ftp://127.0.0.1/feed", "ftp"]),
        (["--source", "http://"], ["--source", "http://", "host"]),
        (["--serve", "--source", "http://127.0.0.1:9"], ["--serve", "--source", "cannot be used together"]),
        (["--items", "10"], ["--items", "--serve"]),
        (["--serve", "--items", "0"], ["--items", "1 to 10000000", "got 0"]),
        (["--serve", "--server-latency-ms", "70000"], ["--server-latency-ms", "0 to 60000"]),
        (["--serve", "--server-latency-ms", "150", "--server-latency-p99-ms", "100"], ["--server-latency-p99-ms", "150", "60000", "got 100"]),
        (["--serve", "--latency-ms", "100"], ["--latency-ms", "--server-latency-ms"]),
        (["--source", "http://127.0.0.1:9", "--latency-profile", "lte"], ["--latency-profile sets the simulated network's delay", "--serve or --source"]),
        (["--serve", "--server-latency-p99-ms", "100"], ["--server-latency-p99-ms needs a log-normal median above 0 ms: give it with --server-latency-ms"]),
        (["--cold"], ["--cold", "--serve", "--source"]),
        (["--server-bandwidth", "1mbit"], ["--server-bandwidth only applies with --serve"]),
        (["--serve", "--server-bandwidth", "bogus"], ["--server-bandwidth takes a rate", "'bogus'", "500kbit"]),
        (["--disk-cache", "/tmp/x.sqlite"], ["--disk-cache", "--serve", "--source"]),
        (["--serve", "--disk-cache", "/tmp"], ["--disk-cache", "'/tmp' is a directory"]),
    ])
    func aBadNetworkFlagExitsWithAMessageNamingIt(arguments: [String], mentions: [String]) async throws {
        let output = try await BoundedProcess.run(try DemoProcess.executable, arguments, timeout: .seconds(30))
        #expect(output.status != 0)
        #expect(output.stdout.isEmpty)
        for text in mentions {
            #expect(output.stderr.contains(text), "stderr lacks \"\(text)\": \(output.stderr)")
        }
    }

    @Test func anUnreachableSourceIsAClearError() async throws {
        try await withTemporaryDirectory { directory in
            // Given a port nothing listens on
            let port = try Self.freePort()
            // When the demo is pointed at it
            let output = try await BoundedProcess.run(
                try DemoProcess.executable,
                ["--source", "http://127.0.0.1:\(port)", "--plain", "--duration", "1", "--disk-cache", directory.appendingPathComponent("c.sqlite").path],
                timeout: .seconds(60))
            // Then it fails, naming the URL it could not load
            #expect(output.status != 0)
            #expect(output.stderr.contains("http://127.0.0.1:\(port)/items"), "\(output.stderr)")
        }
    }

    // MARK: Helpers

    static func summary(_ output: BoundedProcess.Output) throws -> [String: Any] {
        let lines = output.stdout.split(separator: "\n")
        guard lines.count == 1, let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any] else {
            throw DemoTestError("--json printed more or less than one JSON object: \(output.stdout)")
        }
        return object.mapValues { ($0 as? NSNumber)?.doubleValue ?? $0 }
    }

    /// The pid and port in the demo's "started prefetch-server (pid N) …, listening on http://127.0.0.1:PORT" line.
    static func startedServer(_ stderr: String) throws -> (pid: Int32, port: Int) {
        guard let line = stderr.split(separator: "\n").first(where: { $0.contains("started prefetch-server") }),
              let pidText = line.split(separator: "(pid ").last?.split(separator: ")").first, let pid = Int32(pidText),
              let portText = line.split(separator: ":").last, let port = Int(portText) else {
            throw DemoTestError("no \"started prefetch-server\" line in: \(stderr)")
        }
        return (pid, port)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }

    /// A loopback port that was free a moment ago.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw DemoTestError("could not bind a loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func withTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-demo-net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }
}
