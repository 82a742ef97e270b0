import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import PrefetchHTTP
import PrefetchKit
import PrefetchServer
import PrefetchTesting
import IOTestSupport
import Testing
import PrefetchToolSupport

/// A loopback server configuration on an ephemeral port, quiet logs.
func serverConfiguration(_ change: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.itemCount = 1_000
    configuration.thumbnailSize = 4_096
    change(&configuration)
    return configuration
}

let quietLogger: Logger = {
    var logger = Logger(label: "prefetch-server-test")
    logger.logLevel = .critical   // Hummingbird logs an error when a stop cancels open connections
    return logger
}()

func withServer<T: Sendable>(
    _ change: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (DataServer) async throws -> T
) async throws -> T {
    try await DataServer.withServer(serverConfiguration(change), logger: quietLogger, body)
}

extension HTTPLoaderConfiguration {
    /// The defaults with both timeouts times `PREFETCH_TEST_TIME_SCALE`: a loopback test on a slow
    /// build (ThreadSanitizer) must not time out where a normal build would not.
    static var scaledForTests: HTTPLoaderConfiguration {
        var configuration = HTTPLoaderConfiguration()
        configuration.connectTimeout = TestTime.scaled(configuration.connectTimeout)
        configuration.totalTimeout = TestTime.scaled(configuration.totalTimeout)
        return configuration
    }
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

/// These tests are about real I/O over loopback against the in-process server, so they wait for
/// real network events; each is bounded by a time limit and stops its server.
@Suite("HTTPLoader over loopback", .timeLimit(.minutes(TestTime.minutes(1))))
struct HTTPLoaderTests {
    @Test("loads a thumbnail by id through the URL mapping, and by URL")
    func load() async throws {
        try await withServer { server in
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
            let byID = try await loader.load(7)
            #expect(byID.count == 4_096)
            let byURL = try await HTTPLoader<URL>(configuration: .scaledForTests).load(base.appendingPathComponent("thumb/7"))
            #expect(byURL == byID)
            // Deterministic per id
            #expect(try await loader.load(8) != byID)
            #expect(try await loader.load(7) == byID)
        }
    }

    @Test("coalesces concurrent requests for one id into one GET, through AsyncFetcher")
    func coalesce() async throws {
        try await withServer({ $0.faults.latency = try! LatencyModel(.fixed(.milliseconds(100))) }) { server in
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
            let fetcher = try AsyncFetcher(loader: loader)
            let values = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<8 { group.addTask { try await fetcher.value(for: 3) } }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            #expect(values.count == 8)
            #expect(Set(values).count == 1)
            #expect(server.events.requestCount == 1)
            #expect(fetcher.statistics.coalescedRequests + fetcher.statistics.cacheHits == 7)
            // The loader reported the body it moved, so the fetcher knows what the link delivered
            #expect((fetcher.statistics.linkBytesPerSecond ?? 0) > 0, "HTTPLoader reports its body's bytes to the fetcher")
            fetcher.shutdown()
        }
    }

    @Test("cancelling mid-body aborts promptly and the server sees the disconnect")
    func cancelMidBody() async throws {
        try await withServer({
            $0.thumbnailSize = 1_000_000
            $0.faults.bandwidth = 100_000      // 10 s for the whole body
        }) { server in
            let url = server.baseURL.appendingPathComponent("thumb/1")
            let loader = try HTTPLoader<URL>(configuration: .scaledForTests)
            let task = Task { try await loader.load(url) }
            // Given the body is streaming
            await server.events.wait(for: { $0 == .responded(path: "/thumb/1", status: 200) })
            // When the task is cancelled
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            let result = await task.result
            let cancelLatency = clock.now - start
            // Then it throws CancellationError, and the server's next write fails
            #expect(throws: CancellationError.self) { try result.get() }
            await server.events.wait(for: { if case .clientDisconnected("/thumb/1", _, 1_000_000) = $0 { true } else { false } })
            let disconnectLatency = clock.now - start
            #expect(!server.events.events.contains(.completed(path: "/thumb/1", bytes: 1_000_000)))
            print("measured: cancel → CancellationError \(seconds(cancelLatency) * 1000) ms; cancel → server saw disconnect \(seconds(disconnectLatency) * 1000) ms")
        }
    }

    @Test("no response head within the connect timeout: a retryable connectTimeout error")
    func connectTimeout() async throws {
        // The head would come after 20 s (60 s under a scaled build): far past the 0.2 s connect
        // timeout even when the machine is so loaded that the loader's timer runs seconds late.
        let latency = min(TestTime.scaled(.seconds(20)), .seconds(60))
        try await withServer({ $0.faults.latency = try! LatencyModel(.fixed(latency)) }) { server in
            var configuration = HTTPLoaderConfiguration.scaledForTests
            configuration.connectTimeout = .milliseconds(200)
            configuration.totalTimeout = latency * 2
            let loader = try HTTPLoader<URL>(configuration: configuration)
            let url = server.baseURL.appendingPathComponent("thumb/1")
            let error = await #expect(throws: HTTPLoaderError.self) { try await loader.load(url) }
            #expect(error?.code == .connectTimeout)
            #expect(error?.isRetryable == true)
            #expect(error?.message.contains(url.absoluteString) == true)
            #expect(error?.message.contains("connect timeout of 0.2 seconds") == true)
        }
    }

    @Test("a body slower than the total timeout: a retryable totalTimeout error, connection closed")
    func totalTimeout() async throws {
        try await withServer({
            $0.thumbnailSize = 1_000_000
            $0.faults.bandwidth = max(1_024, Int(50_000 / TestTime.scale))
        }) { server in
            var configuration = HTTPLoaderConfiguration.scaledForTests
            // A generous connect timeout: the head comes at once even on a loaded machine; the 20 s body cannot.
            // Under a slower build (TestTime.scale) both limits and the body's length grow together.
            configuration.connectTimeout = TestTime.scaled(.seconds(5))
            configuration.totalTimeout = TestTime.scaled(.seconds(8))
            let loader = try HTTPLoader<URL>(configuration: configuration)
            let error = await #expect(throws: HTTPLoaderError.self) {
                try await loader.load(server.baseURL.appendingPathComponent("thumb/2"))
            }
            #expect(error?.code == .totalTimeout)
            #expect(error?.isRetryable == true)
            await server.events.wait(for: { if case .clientDisconnected("/thumb/2", _, _) = $0 { true } else { false } })
        }
    }

    @Test("503 twice, then success: AsyncFetcher's RetryPolicy retries the retryable errors")
    func serverErrorsThenSuccess() async throws {
        try await withServer({ $0.faults.failFirst = 2 }) { server in
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
            // The fetcher waits between attempts on a manual clock; the loader's timers use real time.
            let clock = ManualClock()
            var configuration = FetcherConfiguration()
            configuration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(100), jitter: 0)
            let failures = Locked([HTTPLoaderError]())
            let fetcher = try AsyncFetcher(configuration: configuration, clock: clock, onEvent: { event in
                if case .loadFailed(_, let error as HTTPLoaderError, _) = event { failures.withLock { $0.append(error) } }
            }, loader: loader)
            let task = Task { try await fetcher.value(for: 5) }
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(100))
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(200))
            let value = try await task.value
            #expect(value.count == 4_096)
            #expect(server.events.requestCount == 3)
            let seen = failures.withLock { $0 }
            #expect(seen.map(\.statusCode) == [503, 503])
            #expect(seen.allSatisfy { $0.code == .serverError && $0.isRetryable })
            #expect(fetcher.statistics.retries == 2)
            fetcher.shutdown()
        }
    }

    @Test("404 fails at once and is not retried")
    func notFoundIsNotRetried() async throws {
        try await withServer { server in
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: .scaledForTests) { id in base.appendingPathComponent("thumb/\(id)") }
            var configuration = FetcherConfiguration()
            configuration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(1), jitter: 0)
            let fetcher = try AsyncFetcher(configuration: configuration, loader: loader)
            let error = await #expect(throws: HTTPLoaderError.self) { try await fetcher.value(for: 5_000) }
            #expect(error?.code == .clientError)
            #expect(error?.statusCode == 404)
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains("/thumb/5000 answered 404") == true)
            #expect(server.events.requestCount == 1)
            fetcher.shutdown()
        }
    }

    @Test("a declared oversized body fails before download; nothing is cached")
    func oversizedDeclared() async throws {
        try await withServer({ $0.thumbnailSize = 200_000 }) { server in
            var configuration = HTTPLoaderConfiguration.scaledForTests
            configuration.maxResponseSize = 100_000
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: configuration) { base.appendingPathComponent("thumb/\($0)") }
            let fetcher = try AsyncFetcher(loader: loader)
            let error = await #expect(throws: HTTPLoaderError.self) { try await fetcher.value(for: 1) }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.isRetryable == false)
            #expect(error?.message.contains("declared a 200000-byte body; the maximum response size is 100000 bytes") == true)
            #expect(fetcher.fetchedData(for: 1) == nil)
            fetcher.shutdown()
        }
    }

    @Test("an oversized streamed (chunked) body is aborted at the limit and the connection closed")
    func oversizedStreamed() async throws {
        try await withServer({
            $0.thumbnailSize = 2_000_000
            $0.faults.bandwidth = 1_000_000
        }) { server in
            var configuration = HTTPLoaderConfiguration.scaledForTests
            configuration.maxResponseSize = 100_000
            let loader = try HTTPLoader<URL>(configuration: configuration)
            let url = try HTTPLoader<URL>.url("\(server.baseURL.absoluteString)/thumb/4?chunked=1")
            let error = await #expect(throws: HTTPLoaderError.self) { try await loader.load(url) }
            #expect(error?.code == .responseTooLarge)
            #expect(error?.message.contains("the maximum response size is 100000 bytes") == true)
            // The server sees the client leave long before the 2 MB body is sent
            await server.events.wait(for: { if case .clientDisconnected("/thumb/4", _, _) = $0 { true } else { false } })
            let sent = server.events.events.compactMap { event -> Int? in
                if case .clientDisconnected(_, let sent, _) = event { sent } else { nil }
            }
            #expect(sent.allSatisfy { $0 < 2_000_000 })
        }
    }

    @Test("a connection reset mid-body is a retryable connectionFailed error; the retry succeeds")
    func connectionReset() async throws {
        try await withServer({ $0.faults.resetFirst = 1; $0.thumbnailSize = 200_000 }) { server in
            let url = server.baseURL.appendingPathComponent("thumb/9")
            let loader = try HTTPLoader<URL>(configuration: .scaledForTests)
            let error = await #expect(throws: HTTPLoaderError.self) { try await loader.load(url) }
            #expect(error?.code == .connectionFailed)
            #expect(error?.isRetryable == true)
            #expect(server.events.events.contains { if case .reset("/thumb/9", _) = $0 { true } else { false } })
            #expect(try await loader.load(url).count == 200_000)
        }
    }

    @Test("a refused connection is a retryable connectionFailed error")
    func connectionRefused() async throws {
        let server = try await DataServer.start(serverConfiguration(), logger: quietLogger)
        let url = server.baseURL.appendingPathComponent("thumb/1")
        await server.stop()
        let error = await #expect(throws: HTTPLoaderError.self) { try await HTTPLoader<URL>(configuration: .scaledForTests).load(url) }
        #expect(error?.code == .connectionFailed)
        #expect(error?.isRetryable == true)
    }

    @Test("connections per host are capped")
    func connectionsPerHost() async throws {
        try await withServer({ $0.faults.latency = try! LatencyModel(.fixed(.milliseconds(150))) }) { server in
            var configuration = HTTPLoaderConfiguration.scaledForTests
            configuration.maxConnectionsPerHost = 2
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: configuration) { base.appendingPathComponent("thumb/\($0)") }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 0..<6 { group.addTask { try await loader.load(id).count } }
                for try await count in group { #expect(count == 4_096) }
            }
            #expect(server.events.requestCount == 6)
            #expect(server.events.peakInFlight <= 2)
        }
    }

    /// A fetcher with previews runs `maxConcurrentLoads + previewSlots` loads (6 + 6 by default);
    /// over HTTP/1.1 the default gives every one of them a connection of its own, so no preview
    /// waits behind a full value for a connection. Each response waits a second at the server, so
    /// all twelve are in flight together unless the client holds some back.
    @Test("by default a fetcher's loads and its preview slots each get a connection")
    func defaultConnectionsCoverTheFetchersSlots() async throws {
        let fetcher = FetcherConfiguration()
        let slots = fetcher.maxConcurrentLoads + fetcher.previewSlots
        #expect(HTTPLoaderConfiguration().maxConnectionsPerHost == slots)
        try await withServer({ $0.faults.latency = try! LatencyModel(.fixed(TestTime.scaled(.seconds(1)))) }) { server in
            let base = server.baseURL
            let loader = try HTTPLoader<Int>(configuration: .scaledForTests) { base.appendingPathComponent("thumb/\($0)") }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 0..<slots { group.addTask { try await loader.load(id).count } }
                for try await count in group { #expect(count == 4_096) }
            }
            #expect(server.events.requestCount == slots)
            #expect(server.events.peakInFlight == slots)
        }
    }
}

@Suite("HTTPLoader input checks")
struct HTTPLoaderInputTests {
    @Test("malformed URLs and unsupported schemes give errors naming the URL and the rule")
    func badURLs() async throws {
        let malformed = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>.url("http://exa mple.com/x") }
        #expect(malformed?.code == .invalidURL)
        #expect(malformed?.message == "HTTPLoader cannot parse \"http://exa mple.com/x\" as a URL: it must be an absolute http or https URL with a host")
        let relative = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>.url("/thumb/1") }
        #expect(relative?.code == .invalidURL)
        let ftp = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>.url("ftp://example.com/file") }
        #expect(ftp?.code == .unsupportedScheme)
        #expect(ftp?.message == "HTTPLoader cannot load ftp://example.com/file: the scheme must be http or https, got \"ftp\"")
        #expect(ftp?.isRetryable == false)
        let loader = try HTTPLoader<URL>()
        let file = await #expect(throws: HTTPLoaderError.self) { try await loader.load(URL(fileURLWithPath: "/etc/passwd")) }
        #expect(file?.code == .unsupportedScheme)
        #expect(file?.message.contains("file:///etc/passwd") == true)
        let noHost = await #expect(throws: HTTPLoaderError.self) { try await loader.load(URL(string: "http:///thumb/1")!) }
        #expect(noHost?.code == .invalidURL)
        #expect(noHost?.message.contains("must have a host") == true)
        #expect(try HTTPLoader<URL>.url("HTTPS://example.com/a").host == "example.com")
    }

    @Test("configuration values out of range are rejected, naming the value and the rule")
    func badConfiguration() {
        var configuration = HTTPLoaderConfiguration()
        configuration.maxConnectionsPerHost = 0
        let perHost = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>(configuration: configuration) }
        #expect(perHost?.message == "HTTPLoaderConfiguration maxConnectionsPerHost must be at least 1, got 0")
        configuration = HTTPLoaderConfiguration()
        configuration.totalTimeout = .seconds(1)
        configuration.connectTimeout = .seconds(2)
        let timeouts = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>(configuration: configuration) }
        #expect(timeouts?.message == "HTTPLoaderConfiguration totalTimeout (1.0 seconds) must be at least connectTimeout (2.0 seconds)")
        configuration = HTTPLoaderConfiguration()
        configuration.maxResponseSize = -1
        let size = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>(configuration: configuration) }
        #expect(size?.code == .invalidConfiguration)
        #expect(HTTPLoaderConfiguration().maxResponseSize == 10 * 1024 * 1024)
    }

    @Test("an invalidated loader refuses requests with a clear error")
    func invalidated() async throws {
        let loader = try HTTPLoader<URL>()
        loader.invalidate()
        loader.invalidate()
        let error = await #expect(throws: HTTPLoaderError.self) { try await loader.load(URL(string: "http://127.0.0.1:9/x")!) }
        #expect(error?.code == .invalidated)
        #expect(error?.message == "HTTPLoader was invalidated; GET http://127.0.0.1:9/x was refused")
    }

    @Test("invalidating the loader mid-body fails the load in flight with invalidated, not a cancellation")
    func invalidatedMidBody() async throws {
        let body = ResumeTests.body(100_000)
        try await ScriptedBodyServer.with(body: body, answer: { _, _ in
            .whole(body.count, headers: [.eTag: "\"v1\""], pauseAfter: 60_000)
        }) { base, _ in
            let url = base.appendingPathComponent("body")
            let meter = ByteMeter()
            let loader = try meteredLoader(meter)
            let load = Task { try await loader.load(url) }
            await meter.wait(until: url, received: 60_000)
            loader.invalidate()
            let error = await #expect(throws: HTTPLoaderError.self) { try await load.value }
            #expect(error?.code == .invalidated)
            #expect(error?.isRetryable == false)
        }
    }

    @Test("a Range among the configured headers gets the server's 206 as the value")
    func configuredRange() async throws {
        try await withServer { server in
            let url = server.baseURL.appendingPathComponent("thumb/3")
            let whole = try await HTTPLoader<URL>(configuration: .scaledForTests).load(url)
            var configuration = HTTPLoaderConfiguration.scaledForTests
            configuration.headers = ["Range": "bytes=0-99"]
            let part = try await HTTPLoader<URL>(configuration: configuration).load(url)
            #expect(part.count == 100)
            #expect(part == whole.prefix(100))
            #expect(server.events.events.contains(.responded(path: "/thumb/3", status: 206)))
        }
    }

    @Test("cancelling before the request starts throws CancellationError without a request")
    func cancelledBeforeStart() async throws {
        let loader = try HTTPLoader<URL>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await loader.load(URL(string: "http://127.0.0.1:9/never")!)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
