import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix

/// The request context: Hummingbird's core storage plus the connection, to reset it on purpose.
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Thrown from a body writer after an injected reset, to stop writing.
struct InjectedReset: Error {}

/// The routes and the fault-injecting body streamer.
struct Routes: Sendable {
    let configuration: ServerConfiguration
    let events: ServerEventLog
    let logger: Logger
    let clock: any Clock<Duration>
    let planner: FaultPlanner
    /// The open connections, for each body's ``OutboundBacklog``.
    let connections: ConnectionRegistry
    /// The shared bandwidth every body goes through, when ``ServerConfiguration/sharedBandwidth`` is set.
    let link: (any ChunkPacing)?

    init(configuration: ServerConfiguration, events: ServerEventLog, planner: FaultPlanner, connections: ConnectionRegistry,
         logger: Logger, clock: any Clock<Duration>) {
        self.configuration = configuration
        self.connections = connections
        self.events = events
        self.logger = logger
        self.clock = clock
        self.planner = planner
        link = Self.link(configuration.sharedBandwidth, honoursPriority: configuration.honoursPriority, clock: clock)
    }

    private static func link<C: Clock>(_ bytesPerSecond: Int?, honoursPriority: Bool, clock: C) -> (any ChunkPacing)? where C.Duration == Duration {
        LinkPacer.make(bytesPerSecond: bytesPerSecond, honoursPriority: honoursPriority, clock: clock)
    }

    /// The urgency the request's `Priority` header signals (RFC 9218), 3 when it signals none.
    private static func urgency(of request: Request) -> Int {
        ServerRequest.urgency(priorityFieldLines: request.headers[values: .priority])
    }

    func register(on router: Router<ServerContext>) {
        router.get("health") { _, _ in "ok" }
        router.get("items") { request, context in try await items(request, context) }
        router.get("thumb/:id") { request, context in try await thumbnail(request, context) }
        router.get("photos/:name") { request, context in try await photo(request, context) }
    }

    private func items(_ request: Request, _ context: ServerContext) async throws -> Response {
        let parsed = ServerRequest.parse(request.uri.description, configuration: configuration)
        guard case .items(let offset, let limit) = parsed, let resource = parsed.resource else {
            throw Self.error(for: parsed)
        }
        let authority = request.head.authority ?? "\(ServerConfiguration.urlHost(configuration.host)):\(configuration.port)"
        let page = PageJSON(offset: offset, limit: limit, total: configuration.itemCount,
                            items: parsed.itemIDs(configuration: configuration).map {
                                Payloads.item(id: $0, seed: configuration.seed, baseURL: "http://\(authority)")
                            })
        let body = BodyPayload.buffer(ByteBuffer(data: try JSONEncoder().encode(page)))
        // Faults are keyed by the page asked for, not by the raw query (extra parameters, order).
        return try await respond(path: request.uri.description, resource: resource, urgency: Self.urgency(of: request),
                                 body: body, contentType: "application/json", context: context)
    }

    private func thumbnail(_ request: Request, _ context: ServerContext) async throws -> Response {
        let parsed = ServerRequest.parse(request.uri.description, configuration: configuration)
        guard case .thumbnail(let id, let chunked) = parsed, let resource = parsed.resource else {
            events.record(.request(path: request.uri.path, attempt: 0))   // nothing is counted for a 404
            events.record(.responded(path: request.uri.path, status: 404))
            throw Self.error(for: parsed)
        }
        // The range is decided from the length alone; the bytes are made chunk by chunk as they are
        // sent (a 416 makes none, and a stalled response holds one chunk).
        let (size, seed) = (configuration.thumbnailSize, configuration.seed)
        let tag = Payloads.thumbnailTag(id: id, size: size, seed: seed)
        let length = size
        var headers: HTTPFields = [.eTag: tag, .acceptRanges: "bytes"]
        switch RangeAnswer.answer(range: request.headers[.range], ifRange: request.headers[.ifRange], entityTag: tag, length: length) {
        case .whole:
            // `?chunked=1` leaves out Content-Length, so a client learns the size only by reading.
            return try await respond(path: request.uri.path, resource: resource, urgency: Self.urgency(of: request),
                                     body: .thumbnail(id: id, size: size, seed: seed), contentType: "application/octet-stream",
                                     headers: headers, declareLength: !chunked, context: context)
        case .part(let first, let last):
            headers[.contentRange] = "bytes \(first)-\(last)/\(length)"
            return try await respond(path: request.uri.path, resource: resource, urgency: Self.urgency(of: request),
                                     body: .thumbnail(id: id, size: size, seed: seed, range: first...last),
                                     contentType: "application/octet-stream",
                                     status: .partialContent, headers: headers, declareLength: !chunked, context: context)
        case .unsatisfiable:
            events.record(.request(path: request.uri.path, attempt: planner.nextAttempt(resource)))
            events.record(.responded(path: request.uri.path, status: 416))
            headers[.contentRange] = "bytes */\(length)"
            headers[.contentType] = "text/plain"
            return Response(status: .rangeNotSatisfiable, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "\(request.uri.path) has \(length) bytes: the range \((request.headers[.range] ?? "").prefix(64)) holds none of them\n")))
        }
    }

    /// A progressive JPEG of the fixtures, whole or by range (unless `?ranges=0`), with its first
    /// scan's length in `X-Preview-Length`.
    private func photo(_ request: Request, _ context: ServerContext) async throws -> Response {
        let parsed = ServerRequest.parse(request.uri.description, configuration: configuration)
        guard case .photo(let id, let thumbnail, let ranges) = parsed, let resource = parsed.resource else {
            events.record(.request(path: request.uri.path, attempt: 0))
            events.record(.responded(path: request.uri.path, status: 404))
            throw Self.error(for: parsed)
        }
        let photos = try PhotoLibrary.shared.get()
        let photo = photos.photo(id, thumbnail: thumbnail)
        let length = photo.bytes.count
        var headers: HTTPFields = [.eTag: photo.entityTag, .acceptRanges: ranges ? "bytes" : "none"]
        if let preview = photo.firstScanEnd { headers[PhotoLibrary.previewLengthField] = "\(preview)" }
        let answer = ranges
            ? RangeAnswer.answer(range: request.headers[.range], ifRange: request.headers[.ifRange], entityTag: photo.entityTag, length: length)
            : .whole
        switch answer {
        case .whole:
            return try await respond(path: resource, resource: resource, urgency: Self.urgency(of: request),
                                     body: .buffer(ByteBuffer(bytes: photo.bytes)), contentType: "image/jpeg",
                                     headers: headers, context: context)
        case .part(let first, let last):
            headers[.contentRange] = "bytes \(first)-\(last)/\(length)"
            return try await respond(path: resource, resource: resource, urgency: Self.urgency(of: request),
                                     body: .buffer(ByteBuffer(bytes: photo.bytes[first...last])), contentType: "image/jpeg",
                                     status: .partialContent, headers: headers, context: context)
        case .unsatisfiable:
            events.record(.request(path: resource, attempt: planner.nextAttempt(resource)))
            events.record(.responded(path: resource, status: 416))
            headers[.contentRange] = "bytes */\(length)"
            headers[.contentType] = "text/plain"
            return Response(status: .rangeNotSatisfiable, headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "\(resource) has \(length) bytes: the range \((request.headers[.range] ?? "").prefix(64)) holds none of them\n")))
        }
    }

    /// The HTTP error for a request that is not served.
    private static func error(for request: ServerRequest) -> HTTPError {
        switch request {
        case .badRequest(let message): HTTPError(.badRequest, message: message)
        case .notFound(let message): HTTPError(.notFound, message: message)
        case .health, .items, .thumbnail, .photo: HTTPError(.notFound, message: "this route does not serve \(request)")
        }
    }

    private func respond(
        path: String, resource: String, urgency: Int, body: BodyPayload, contentType: String, status: HTTPResponse.Status = .ok,
        headers: HTTPFields = [:], declareLength: Bool = true, context: ServerContext
    ) async throws -> Response {
        let attempt = planner.nextAttempt(resource)
        events.record(.request(path: path, attempt: attempt))
        let inFlight = InFlightRequest(events)
        let plan = planner.plan(path: resource, attempt: attempt, bodySize: body.count)
        do {
            if plan.latency > .zero { try await clock.sleep(for: plan.latency) }
        } catch {
            inFlight.leave()
            throw error
        }
        if plan.fail {
            let message = ByteBuffer(string: "injected fault: 503 for \(path) attempt \(attempt)\n")
            return answer(path: path, status: .serviceUnavailable, headers: [.contentType: "text/plain"],
                          length: message.readableBytes, inFlight: inFlight) { writer in
                try await writer.write(message)
                try await writer.finish(nil)
            }
        }
        let streamer = BodyStreamer(path: path, urgency: urgency, body: body, plan: plan, configuration: configuration,
                                    events: events, logger: context.logger, clock: clock, link: link, channel: context.channel,
                                    backlog: connections.backlog(for: context.channel))
        var headers = headers
        headers[.contentType] = contentType
        return answer(path: path, status: status, headers: headers, length: declareLength ? body.count : nil,
                      inFlight: inFlight) { writer in
            try await streamer.stream(to: &writer)
        }
    }

    /// The response of a request counted by `inFlight`, whose body `write` writes.
    ///
    /// Its `responded` event is recorded once its head is written, which is when Hummingbird runs
    /// the body closure, and the request is counted out when the body ends. Hummingbird drops the
    /// response without running the closure when it cannot write the head (the client went away
    /// during the injected latency): then nothing is recorded, and `inFlight` counts the request
    /// out as it is released.
    private func answer(
        path: String, status: HTTPResponse.Status, headers: HTTPFields, length: Int?,
        inFlight: InFlightRequest, write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void
    ) -> Response {
        let events = events
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: length) { writer in
            defer { inFlight.leave() }
            events.record(.responded(path: path, status: status.code))
            try await write(&writer)
        })
    }
}

/// Writes one body in chunks, pacing it to the bandwidth cap and the shared link, pausing it when
/// slow, resetting it when told.
///
/// Each chunk is made just before it is written, and the next one only once the connection has
/// taken it: a client that stops reading holds one chunk and what NIO buffers for its socket.
struct BodyStreamer: Sendable {
    let path: String
    /// The request's urgency (RFC 9218), for the shared link.
    let urgency: Int
    let body: BodyPayload
    let plan: FaultPlan
    let configuration: ServerConfiguration
    let events: ServerEventLog
    let logger: Logger
    let clock: any Clock<Duration>
    let link: (any ChunkPacing)?
    let channel: any Channel
    /// The connection's bytes not yet taken by its socket (nil if the connection is gone already).
    let backlog: OutboundBacklog?

    /// The most response bytes of a connection queued for its socket before the body makes its
    /// next chunk: four chunks.
    static let maxBacklog = 64 * 1024
    /// Chunks of at most 16 KiB, and about 1/50 s of the slower of the two limits (at least 1 KiB),
    /// so a paced body flows smoothly and bodies sharing the link take short turns.
    static func chunkSize(bandwidth: Int?, sharedBandwidth: Int?) -> Int {
        let slowest = [bandwidth, sharedBandwidth].compactMap { $0 }.min()
        return slowest.map { max(1_024, min(16_384, $0 / 50)) } ?? 16_384
    }

    func stream(to writer: inout any ResponseBodyWriter) async throws {
        let total = body.count
        let bandwidth = configuration.faults.bandwidth
        let chunkSize = Self.chunkSize(bandwidth: bandwidth, sharedBandwidth: configuration.sharedBandwidth)
        var sent = 0
        // Counted on the shared link from the first chunk until the body ends, however it ends, so
        // that less urgent bodies waiting for it go on.
        let sender = link?.register(urgency: urgency)
        defer { if let sender { link?.unregister(sender) } }
        do {
            while sent < total {
                await backlog?.waitForRoom(below: Self.maxBacklog)
                var n = min(chunkSize, total - sent)
                if let sender { try await link?.beforeSending(n, by: sender) }
                if let resetAfter = plan.resetAfter, sent + n > resetAfter {
                    n = resetAfter - sent
                    if n > 0 {
                        backlog?.added(n)
                        try await writer.write(body.bytes(at: sent, length: n))
                    }
                    sent += n
                    events.record(.reset(path: path, bytesSent: sent))
                    logger.info("injected connection reset", metadata: ["path": "\(path)", "bytesSent": "\(sent)"])
                    await reset()
                    throw InjectedReset()
                }
                backlog?.added(n)
                try await writer.write(body.bytes(at: sent, length: n))
                sent += n
                // A write that the socket takes at once does not suspend: without this, bodies whose
                // clients buffer megabytes kept the cooperative pool's threads and a fresh /health waited.
                await Task.yield()
                if let bandwidth {
                    try await clock.sleep(for: .microseconds(Int64(n) * 1_000_000 / Int64(bandwidth)))
                }
                if plan.slowBody, sent < total { try await clock.sleep(for: configuration.faults.slowBodyDelay) }
            }
            try await writer.finish(nil)
            events.record(.completed(path: path, bytes: sent))
        } catch is InjectedReset {
            throw InjectedReset()
        } catch {
            events.record(.clientDisconnected(path: path, bytesSent: sent, of: total))
            logger.notice("client disconnected mid-body",
                          metadata: ["path": "\(path)", "bytesSent": "\(sent)", "of": "\(total)", "error": "\(error)"])
            throw error
        }
    }

    /// Closes the connection with a TCP RST (SO_LINGER 0) rather than a FIN.
    private func reset() async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
    }
}
