import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

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
/// - `GET /photos/{id}.jpg`: a real progressive JPEG (`image/jpeg`), one of six fixtures (200 to
///   1170 px wide, 5 to 137 KB) cycled over the ids; `?variant=thumb` gets its 200 px variant.
///   Ranges and `If-Range` as for thumbnails; `X-Preview-Length` tells where the first scan ends
///   (the second start-of-scan marker), the prefix a preview needs. `?ranges=0` plays a server
///   without range support: `Accept-Ranges: none`, and every request gets the whole body.
/// - `GET /health`: `ok`.
///
/// With a ``ServerConfiguration/sharedBandwidth``, the requests' RFC 9218 `Priority` headers order
/// the bodies on that link: more urgent ones first (``ServerConfiguration/honoursPriority``).
///
/// A connection that keeps the server waiting longer than ``ServerConfiguration/idleTimeout``
/// (it sends nothing, stalls half-way through a request, or idles between requests) is closed.
/// No client can pin it: it holds at most ``connectionLimit`` connections (a new one beyond takes
/// the place of one that has kept it waiting, or is refused with `503`); a request body must be
/// at most ``ServerConfiguration/maxRequestBodySize`` bytes and arrive within
/// ``ServerConfiguration/requestBodyTimeout``; a response its client stops reading holds one
/// chunk, not its body, and is closed after ``ServerConfiguration/writeTimeout``; and a server
/// stopped by a signal exits within about ``ServerConfiguration/shutdownGracePeriod``.
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
    /// The open connections.
    let connections: ConnectionRegistry
    private let task: Task<Void, any Error>

    /// The most connections the server holds at once: ``ServerConfiguration/maxConnections``, or
    /// fewer when the process may open few descriptors (a quarter of them, and at least 64, are
    /// kept for everything else).
    public var connectionLimit: Int { connections.limit }
    /// The connections open now.
    public var openConnections: Int { connections.openCount }
    /// The most connections that were open at once.
    public var peakConnections: Int { connections.peakCount }

    /// `http://HOST:PORT`, with an IPv6 host in brackets (`http://[::1]:8080`).
    public var baseURL: URL { URL(string: "http://\(ServerConfiguration.urlHost(configuration.host)):\(port)")! }

    private init(configuration: ServerConfiguration, events: ServerEventLog, faultPlanner: FaultPlanner,
                 connections: ConnectionRegistry, port: Int, task: Task<Void, any Error>) {
        self.configuration = configuration
        self.events = events
        self.faultPlanner = faultPlanner
        self.connections = connections
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
        let connections = makeRegistry(configuration, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = makeApplication(configuration, events: events, planner: planner, connections: connections,
                                  logger: logger, clock: clock) { port in
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
        return DataServer(configuration: configuration, events: events, faultPlanner: planner, connections: connections,
                          port: port, task: task)
    }

    /// Runs a server until SIGINT or SIGTERM, calling `onListening` with the bound port once it listens.
    ///
    /// At the signal it stops accepting, closes its idle connections, lets the responses under way
    /// finish for at most ``ServerConfiguration/shutdownGracePeriod``, then closes every connection
    /// left and returns.
    public static func run(
        _ configuration: ServerConfiguration,
        logger: Logger = Logger(label: "prefetch-server"),
        onListening: @escaping @Sendable (Int) -> Void
    ) async throws {
        try configuration.validate()
        let connections = makeRegistry(configuration, logger: logger)
        // Nothing reads the events of a standalone server: keep a small log.
        let app = makeApplication(configuration, events: ServerEventLog(capacity: 64), planner: FaultPlanner(configuration: configuration),
                                  connections: connections, logger: logger, clock: ContinuousClock(), onListening: onListening)
        let service = ShutdownDeadline(app: app, connections: connections, grace: configuration.shutdownGracePeriod, logger: logger)
        var group = ServiceGroupConfiguration(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Should anything still wait once every connection is closed, cancel it.
        group.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod + .seconds(1)
        try await ServiceGroup(configuration: group).run()
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

    /// Stops the server: closes the listener and every connection at once, whatever its clients
    /// do, and waits until it has.
    public func stop() async {
        connections.closeAll()
        task.cancel()
        _ = try? await task.value
    }

    /// The registry of a server with `configuration`: its connection limit lowered to what the
    /// process's descriptor limit leaves room for, and logged when it is.
    private static func makeRegistry(_ configuration: ServerConfiguration, logger: Logger) -> ConnectionRegistry {
        let descriptors = ConnectionLimit.processDescriptorLimit()
        let limit = ConnectionLimit.effective(configured: configuration.maxConnections, descriptorLimit: descriptors)
        if limit < configuration.maxConnections {
            logger.notice("at most \(limit) connections: the descriptor limit \(descriptors ?? 0) leaves room for no more than that (maxConnections is \(configuration.maxConnections))",
                          metadata: ["limit": "\(limit)"])
        }
        return ConnectionRegistry(limit: limit, evictionAge: configuration.connectionEvictionAge, logger: logger)
    }

    private static func makeApplication(
        _ configuration: ServerConfiguration,
        events: ServerEventLog,
        planner: FaultPlanner,
        connections: ConnectionRegistry,
        logger: Logger,
        clock: any Clock<Duration>,
        onListening: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let routes = Routes(configuration: configuration, events: events, planner: planner, connections: connections,
                            logger: logger, clock: clock)
        let router = Router(context: ServerContext.self)
        router.add(middleware: LogRequestsMiddleware(.info))
        routes.register(on: router)
        // Hummingbird's HTTPConnectionStateHandler closes a connection that has kept the server waiting
        // for `idleTimeout`: before its first head, mid-head, mid-body, or between requests. The
        // ConnectionGuard on each connection does the rest: the connection limit, request bodies,
        // the write timeout.
        let http1 = HTTP1Channel.Configuration(idleTimeout: TimeAmount(configuration.idleTimeout))
        let limits = ConnectionLimits(configuration)
        let server = HTTPServerBuilder { responder in
            GuardedHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: http1), limits: limits,
                                registry: connections, events: events, logger: logger)
        }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(ServerConfiguration.bindHost(configuration.host), port: configuration.port),
                                  serverName: nil),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }
}

/// A server application under a ``ServiceGroup``, with a deadline on its graceful shutdown: the
/// group's signal stops it accepting and closes its idle connections (Hummingbird), and the
/// connections still open `grace` later are closed here, so the responses that never finish (a
/// client that stopped reading, a body trickling in) cannot hold the shutdown.
struct ShutdownDeadline<App: Service>: Service {
    let app: App
    let connections: ConnectionRegistry
    let grace: Duration
    let logger: Logger

    func run() async throws {
        let (app, connections, grace, logger) = (app, connections, grace, logger)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await app.run()
                return true
            }
            group.addTask {
                try await gracefulShutdown()
                try await Task.sleep(for: grace)
                let closed = connections.closeAll()
                if closed > 0 {
                    logger.notice("shutting down: closed \(closed) connections still open \(grace) after the signal",
                                  metadata: ["closed": "\(closed)"])
                }
                return false
            }
            while let appEnded = try await group.next() {
                if appEnded { group.cancelAll(); return }
            }
        }
    }
}
