import Foundation
import PrefetchToolSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import IOTestSupport
import Logging
import PrefetchServer
import PrefetchTesting
import Testing

@Suite("ServerOptions")
struct ServerOptionsTests {
    func parse(_ arguments: [String]) throws -> ServerConfiguration {
        try ServerOptions.parse(arguments).configuration()
    }

    @Test("flags become a configuration")
    func flags() throws {
        let c = try parse(["--port", "0", "--items", "500", "--thumb-size", "100", "--latency-median-ms", "40",
                           "--latency-p99-ms", "400", "--bandwidth", "65536", "--error-rate", "0.1", "--seed", "9",
                           "--fail-first", "2"])
        #expect(c.port == 0)
        #expect(c.itemCount == 500)
        #expect(c.faults.latency == (try LatencyModel(.logNormal(median: .milliseconds(40), p99: .milliseconds(400)), failureRate: 0.1)))
        #expect(c.faults.bandwidth == 65_536)
        #expect(c.faults.failFirst == 2)
        #expect(c.seed == 9)
        #expect(c.host == "127.0.0.1")
    }

    @Test("out-of-range flags fail, naming the flag, the value and the accepted range", arguments: [
        (["--port", "70000"], "--port must be in 0...65535, got 70000"),
        (["--items", "0"], "--items must be in 1...10000000, got 0"),
        (["--error-rate", "1.5"], "--failure-rate (or --error-rate) must be from 0 to 1; got 1.5"),
        (["--reset-rate=-0.1"], "--reset-rate must be in 0...1, got -0.1"),
        (["--bandwidth", "10"], "--bandwidth must be in 1024...10737418240, got 10"),
        (["--latency-ms=-5"], "--latency-ms must be from 0 to 60000 ms; got -5"),
        (["--latency-median-ms", "50", "--latency-p99-ms", "10"], "--latency-p99-ms must be from the median (50 ms) to 60000 ms; got 10"),
        (["--latency-median-ms", "50"], "--latency-median-ms needs --latency-p99-ms: a log-normal distribution needs its 99th percentile"),
        (["--latency-p99-ms", "400"], "--latency-p99-ms needs a log-normal median above 0 ms: give it with --latency-ms"),
        (["--latency-ms", "40", "--latency-median-ms", "50"], "--latency-ms and --latency-median-ms cannot be combined: choose a fixed latency or a distribution"),
        (["--latency-profile", "mars"], "The value 'mars' is invalid for '--latency-profile <latency-profile>'. Please provide one of 'wifi', 'lte' or 'emerging'."),
        (["--fail-first", "5000"], "--fail-first must be in 0...1000, got 5000"),
    ])
    func outOfRange(arguments: [String], message: String) {
        // ArgumentParser's parse calls validate(), which reports the configuration's message
        do {
            _ = try ServerOptions.parse(arguments)
            Issue.record("parse accepted \(arguments)")
        } catch {
            #expect(ServerOptions.message(for: error) == message)
        }
    }

    @Test("a latency profile is the simulator's network, its failed attempts the server's 503s; --latency-ms with a p99 is the median")
    func sharedLatencyFlags() throws {
        #expect(try parse(["--latency-profile", "emerging"]).faults.latency == LatencyProfile.emerging.model)
        #expect(try parse(["--latency-profile", "wifi", "--error-rate", "0.5"]).faults.latency.failureRate == 0.5)
        #expect(try parse(["--latency-ms", "40", "--latency-p99-ms", "400"]).faults.latency == parse(["--latency-median-ms", "40", "--latency-p99-ms", "400"]).faults.latency)
        #expect(try parse([]).faults.latency == LatencyModel(.fixed(.zero)))
    }

    @Test("the server refuses a latency over 60 s that did not come from the flags")
    func latencyOverAMinute() throws {
        var configuration = ServerConfiguration()
        configuration.faults.latency = try LatencyModel(.logNormal(median: .seconds(1), p99: .seconds(61)))
        let error = #expect(throws: ServerConfigurationError.self) { try configuration.validate() }
        #expect(error?.message == "latency (ms) must be in 0.0...60000.0, got 61000.0")
    }
}

@Suite("prefetch-server executable", .timeLimit(.minutes(TestTime.minutes(1))))
struct PrefetchServerExecutableTests {
    @Test("--port 0 prints the listening line first, serves /items, and stops on SIGTERM")
    func listensAndServes() async throws {
        let process = Process()
        process.executableURL = BuiltProducts.executable("prefetch-server")
        process.arguments = ["--port", "0", "--items", "1000"]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let output = stdout.fileHandleForReading
        let line = try await onBlockingThread { output.readLine() ?? "" }
        let prefix = "listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix))
        let port = try #require(Int(line.dropFirst(prefix.count)))
        #expect(port > 0)
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/items?offset=990&limit=20")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["total"] as? Int == 1_000)
        #expect((json["items"] as? [Any])?.count == 10)
        process.terminate()
        let status = try await onBlockingThread { () -> Int32 in
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)      // SIGTERM is a graceful shutdown
    }

    @Test("a bad flag exits non-zero with a message naming the flag and the range")
    func badFlag() async throws {
        let process = Process()
        process.executableURL = BuiltProducts.executable("prefetch-server")
        process.arguments = ["--port", "99999"]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errors = stderr.fileHandleForReading
        let output = try await onBlockingThread { String(decoding: errors.readDataToEndOfFile(), as: UTF8.self) }
        let status = try await onBlockingThread { () -> Int32 in
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status != 0)
        #expect(output.contains("--port must be in 0...65535, got 99999"))
    }
}

@Suite("PrefetchServer in process", .timeLimit(.minutes(TestTime.minutes(1))))
struct PrefetchServerTests {
    static let logger: Logger = {
        var logger = Logger(label: "server-test")
        logger.logLevel = .critical   // Hummingbird logs an error when a stop cancels open connections
        return logger
    }()

    func get(_ url: URL) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("serves pages, deterministic thumbnails, 404s and 400s")
    func routes() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.itemCount = 120
        configuration.thumbnailSize = 1_000
        try await DataServer.withServer(configuration, logger: Self.logger) { server in
            let base = server.baseURL.absoluteString
            let (status, data) = try await get(URL(string: "\(base)/items?offset=100&limit=50")!)
            #expect(status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let items = try #require(json["items"] as? [[String: Any]])
            #expect(items.count == 20)
            #expect(items.first?["id"] as? Int == 100)
            #expect(items.first?["title"] as? String == "Item 100")
            #expect(items.first?["thumbnailURL"] as? String == "\(base)/thumb/100")
            #expect((items.first?["colour"] as? String)?.hasPrefix("#") == true)
            let (thumbStatus, thumb) = try await get(URL(string: "\(base)/thumb/5")!)
            #expect(thumbStatus == 200)
            #expect(thumb.count == 1_000)
            #expect(try await get(URL(string: "\(base)/thumb/5")!).1 == thumb)
            #expect(try await get(URL(string: "\(base)/thumb/120")!).0 == 404)
            let (badStatus, badBody) = try await get(URL(string: "\(base)/items?limit=0")!)
            #expect(badStatus == 400)
            #expect(String(decoding: badBody, as: UTF8.self).contains("limit must be an integer in 1...500, got 0"))
        }
    }

    @Test("a taken port is a bind error, not a hang")
    func portInUse() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        try await DataServer.withServer(configuration, logger: Self.logger) { server in
            var clash = configuration
            clash.port = server.port
            await #expect(throws: (any Error).self) { try await DataServer.start(clash, logger: Self.logger) }
        }
    }
}
