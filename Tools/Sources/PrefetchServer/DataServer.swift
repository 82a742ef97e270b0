import Foundation
import Hummingbird
import Logging
import NIOCore

/// A local data server for the demo and the I/O tests: a feed of items and their thumbnails,
/// with seeded, injectable latency, bandwidth limits (per response, and one link shared by all),
/// errors, resets and slow bodies.
///
/// Routes:
/// - `GET /items?offset=O&limit=L`: a JSON page `{offset, limit, total, items: [{id, title, colour, thumbnailURL}]}`;
///   `limit` defaults to 50 and is at most ``ServerConfiguration/maxPageSize``.
/// - `GET /thumb/{id}`: ``ServerConfiguration/thumbnailSize`` deterministic bytes for `id`
///   (`application/octet-stream`, with `Content-Length`, or chunked without it for `?chunked=1`);
///   404 for an id outside the feed. Each thumbnail carries a strong `ETag` (the same for the same
///   seed, id and size) and `Accept-Ranges: bytes`; `Range: bytes=N-`, `bytes=N-M` or `bytes=-K`
///   gets `206` with `Content-Range`, unless an `If-Range` names another tag (then `200`, the whole
///   body); a range past the end gets `416` with `Content-Range: bytes */LENGTH`.
/// - `GET /health`: `ok`.
///
/// With a ``ServerConfiguration/sharedBandwidth``, the requests' RFC 9218 `Priority` headers order
/// the bodies on that link: more urgent ones first (``ServerConfiguration/honoursPriority``).
///
/// A connection that keeps the server waiting longer than ``ServerConfiguration/idleTimeout``
/// (it sends nothing, stalls half-way through a request, or idles between requests) is closed.
///
/// Start it in-process on an ephemeral port, and stop it, from a test:
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 0
/// let server = try await DataServer.start(configuration)
/// defer { Task { await server.stop() } }
/// let url = server.baseURL.appendingPathComponent("thumb/7")
/// ```
public final class DataServer: Sendable {
    /// The configuration the server runs with.
    public let configuration: ServerConfiguration
    /// What the server did and saw: requests, responses, disconnects, resets.
    public let events: ServerEventLog
    /// The port the server is bound to (the ephemeral one when asked for port 0).
    public let port: Int
    /// The per-resource attempt counters behind the injected faults.
    let faultPlanner: FaultPlanner
    private let task: Task<Void, any Error>

    /// `http://HOST:PORT`, with an IPv6 host in brackets (`http://[::1]:8080`).
    public var baseURL: URL { URL(string: "http://\(ServerConfiguration.urlHost(configuration.host)):\(port)")! }

    private init(configuration: ServerConfiguration, events: ServerEventLog, faultPlanner: FaultPlanner, port: Int,
                 task: Task<Void, any Error>) {
        self.configuration = configuration
        self.events = events
        self.faultPlanner = faultPlanner
        self.port = port
        self.task = task
    }

    /// Starts a server in this process and returns once it listens.
    ///
    /// - Throws: ``ServerConfigurationError`` for a value out of range, or the bind error.
    public static func start(
        _ configuration: ServerConfiguration,
        logger: Logger = Logger(label: "prefetch-server"),
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> DataServer {
        try configuration.validate()
        let events = ServerEventLog()
        let planner = FaultPlanner(configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = makeApplication(configuration, events: events, planner: planner, logger: logger, clock: clock) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw ServerConfigurationError("the server at \(configuration.host):\(configuration.port) stopped before it listened")
        }
        return DataServer(configuration: configuration, events: events, faultPlanner: planner, port: port, task: task)
    }

    /// Runs a server until SIGINT or SIGTERM, calling `onListening` with the bound port once it listens.
    public static func run(
        _ configuration: ServerConfiguration,
        logger: Logger = Logger(label: "prefetch-server"),
        onListening: @escaping @Sendable (Int) -> Void
    ) async throws {
        try configuration.validate()
        // Nothing reads the events of a standalone server: keep a small log.
        let app = makeApplication(configuration, events: ServerEventLog(capacity: 64), planner: FaultPlanner(configuration: configuration),
                                  logger: logger, clock: ContinuousClock(), onListening: onListening)
        try await app.runService()
    }

    /// Starts a server, runs `body` with it, and stops the server however `body` ends.
    public static func withServer<T: Sendable>(
        _ configuration: ServerConfiguration,
        logger: Logger = Logger(label: "prefetch-server"),
        _ body: (DataServer) async throws -> T
    ) async throws -> T {
        let server = try await start(configuration, logger: logger)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server: closes the listener and every connection, and waits until it has.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    private static func makeApplication(
        _ configuration: ServerConfiguration,
        events: ServerEventLog,
        planner: FaultPlanner,
        logger: Logger,
        clock: any Clock<Duration>,
        onListening: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let routes = Routes(configuration: configuration, events: events, planner: planner, logger: logger, clock: clock)
        let router = Router(context: ServerContext.self)
        router.add(middleware: LogRequestsMiddleware(.info))
        routes.register(on: router)
        // Hummingbird's HTTPConnectionStateHandler closes a connection that has kept the server waiting
        // for `idleTimeout`: before its first head, mid-head, mid-body, or between requests.
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: .init(address: .hostname(ServerConfiguration.bindHost(configuration.host), port: configuration.port),
                                  serverName: nil),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }
}
