import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The limits one connection is held to, beside Hummingbird's idle timeout.
struct ConnectionLimits: Sendable {
    /// The longest request body, in bytes.
    var maxRequestBodySize: Int
    /// How long a request body may take to arrive whole, from its head (by default the idle timeout).
    var requestBodyTimeout: TimeAmount
    /// How long a response may go without progress (its client reading none of it).
    var writeTimeout: TimeAmount

    init(_ configuration: ServerConfiguration) {
        maxRequestBodySize = configuration.maxRequestBodySize
        requestBodyTimeout = TimeAmount(configuration.requestBodyTimeout ?? configuration.idleTimeout)
        writeTimeout = TimeAmount(configuration.writeTimeout)
    }
}

/// Hummingbird's HTTP/1 child channel with a ``ConnectionGuard`` on each connection, right after
/// the request decoder: it sees each request head, body part and end, and each response part on
/// its way to the encoder.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let registry: ConnectionRegistry
    let events: ServerEventLog
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (limits, registry, events, guardLogger) = (limits, registry, events, self.logger)
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(ConnectionGuard(limits: limits, registry: registry, events: events, logger: guardLogger),
                                    position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Holds one connection to the server's limits: admits it or refuses it (``ConnectionRegistry``),
/// bounds its request bodies in size and time, closes it when a response makes no progress, and
/// tells the registry while the connection keeps the server waiting for a request.
///
/// It runs on the connection's event loop, between NIO's request decoder and Hummingbird's codec.
/// A request whose head declares a body over the limit never reaches Hummingbird: it gets `413`
/// (when no response is under way) and the connection is closed; so does one whose body grows
/// past it, or that has not arrived whole `requestBodyTimeout` after its head (Hummingbird's idle
/// timeout restarts at each body part, so a body trickled a byte at a time held a connection for
/// ever). A response whose bytes wait in the connection, none taken by the client for
/// `writeTimeout`, is closed: the server's own pauses (latency, bandwidth, slow bodies) leave
/// nothing waiting and never count.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How long a refused connection may stay open for its request to be read (so the client reads
    /// the `503` rather than a reset) before it is closed anyway.
    static let refusalLinger = TimeAmount.milliseconds(100)
    /// The longest request target kept for events.
    static let maxPathLength = 256

    private enum Phase { case new, open, refusing, closed }

    private let limits: ConnectionLimits
    private let registry: ConnectionRegistry
    private let events: ServerEventLog
    private let logger: Logger

    private var phase = Phase.new
    /// The targets of the requests whose heads were read and whose responses have not ended, oldest first.
    private var unanswered: [String] = []
    /// A request head was read, its end not yet.
    private var readingRequest = false
    /// The target of the request read last (it may be answered before its body has arrived).
    private var readingTarget: String?
    private var bodyBytes = 0
    private var requestNumber = 0
    private var bodyTimer: Scheduled<Void>?
    /// Since when the connection has kept the server waiting for a request (nil while it is answered).
    private var waitingSince: NIODeadline?
    /// Response writes handed on and not yet taken by the socket.
    private var pendingWrites = 0
    private var lastWriteProgress = NIODeadline.now()
    private var writeTimer: Scheduled<Void>?
    private var refusalTimer: Scheduled<Void>?
    /// The response bytes handed on and not yet taken, for the bodies to wait on.
    private let backlog = OutboundBacklog()

    init(limits: ConnectionLimits, registry: ConnectionRegistry, events: ServerEventLog, logger: Logger) {
        self.limits = limits
        self.registry = registry
        self.events = events
        self.logger = logger
    }

    // MARK: Admission

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        guard phase == .new else { return }
        let now = NIODeadline.now()
        switch registry.admit(context.channel, backlog: backlog, now: now) {
        case .admitted:
            phase = .open
            waitingSince = now
        case .admittedEvicting(_, let evictedPath):
            phase = .open
            waitingSince = now
            events.record(.connectionClosed(path: evictedPath, reason: .evicted))
        case .refused(let open):
            phase = .refusing
            events.record(.connectionRefused(open: open))
            logger.debug("connection refused", metadata: ["open": "\(open)", "limit": "\(registry.limit)"])
            let written = writeAnswer(context, status: .serviceUnavailable,
                                      message: "the server has \(open) connections open, its limit; try again\n")
            // Close once its request has been read (closing on unread bytes resets the connection,
            // and the client may lose the 503), or after a short linger if none comes.
            written.assumeIsolated().whenComplete { _ in
                self.refusalTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.refusalLinger) {
                    self.close(context)
                }
            }
        }
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase == .open else { return }   // a refused or closed connection's requests go nowhere
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestNumber += 1
            readingRequest = true
            bodyBytes = 0
            let target = String(head.uri.prefix(Self.maxPathLength))
            readingTarget = target
            if let declared = head.headers.first(name: "content-length").flatMap({ Int($0) }), declared > limits.maxRequestBodySize {
                refuseBody(context, target: target, bytes: declared, headForwarded: false)
                return
            }
            unanswered.append(target)
            if waitingSince == nil { waitingSince = .now() }
            registry.setWaiting(context.channel, since: waitingSince, path: target)
            let number = requestNumber
            bodyTimer?.cancel()
            bodyTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.requestBodyTimeout) {
                self.bodyTimedOut(context, request: number)
            }
            context.fireChannelRead(data)
        case .body(let part):
            bodyBytes += part.readableBytes
            if bodyBytes > limits.maxRequestBodySize {
                refuseBody(context, target: readingTarget, bytes: bodyBytes, headForwarded: true)
                return
            }
            context.fireChannelRead(data)
        case .end:
            readingRequest = false
            bodyTimer?.cancel()
            bodyTimer = nil
            // Answered already (a response may end before its request's body does): waiting again.
            waitingSince = unanswered.isEmpty ? .now() : nil
            registry.setWaiting(context.channel, since: waitingSince, path: nil)
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if phase == .refusing, refusalTimer != nil {
            close(context)   // the refused connection's request has been read
            return
        }
        context.fireChannelReadComplete()
    }

    private func refuseBody(_ context: ChannelHandlerContext, target: String?, bytes: Int, headForwarded: Bool) {
        events.record(.connectionClosed(path: target, reason: .requestBodyTooLarge))
        logger.notice("request body over the limit: closing the connection",
                      metadata: ["path": "\(target ?? "")", "bytes": "\(bytes)", "limit": "\(limits.maxRequestBodySize)"])
        // A 413 only when no response is under way or due: it would land in the middle of one.
        guard !headForwarded, unanswered.isEmpty else { return close(context) }
        phase = .refusing
        writeAnswer(context, status: .payloadTooLarge,
                    message: "request bodies are limited to \(limits.maxRequestBodySize) bytes; this one has \(bytes)\n")
            .assumeIsolated().whenComplete { _ in self.close(context) }
    }

    private func bodyTimedOut(_ context: ChannelHandlerContext, request number: Int) {
        bodyTimer = nil
        guard phase == .open, readingRequest, number == requestNumber else { return }
        let target = readingTarget
        events.record(.connectionClosed(path: target, reason: .requestTimeout))
        logger.notice("request body not whole in time: closing the connection",
                      metadata: ["path": "\(target ?? "")", "bytes": "\(bodyBytes)", "timeout": "\(limits.requestBodyTimeout.nanoseconds / 1_000_000) ms"])
        close(context)
    }

    // MARK: Responses

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), phase == .open {
            if !unanswered.isEmpty { unanswered.removeFirst() }
            if unanswered.isEmpty, !readingRequest {
                waitingSince = .now()
                registry.setWaiting(context.channel, since: waitingSince, path: nil)
            }
        }
        let bytes = switch unwrapOutboundIn(data) {
        case .body(.byteBuffer(let buffer)): buffer.readableBytes
        case .body(.fileRegion(let region)): region.readableBytes
        case .head, .end: 0
        }
        pendingWrites += 1
        if pendingWrites == 1 {
            lastWriteProgress = .now()
            armWriteTimer(context)
        }
        let taken = context.eventLoop.makePromise(of: Void.self)
        let backlog = backlog
        taken.futureResult.assumeIsolated().whenComplete { result in
            self.pendingWrites -= 1
            self.lastWriteProgress = .now()
            backlog.taken(bytes)
            promise?.completeWith(result)
        }
        context.write(data, promise: taken)
    }

    private func armWriteTimer(_ context: ChannelHandlerContext) {
        guard writeTimer == nil, phase == .open else { return }
        writeTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: lastWriteProgress + limits.writeTimeout) {
            self.writeTimer = nil
            guard self.pendingWrites > 0, self.phase == .open else { return }
            guard NIODeadline.now() >= self.lastWriteProgress + self.limits.writeTimeout else {
                return self.armWriteTimer(context)
            }
            let target = self.unanswered.first
            self.events.record(.connectionClosed(path: target, reason: .writeTimeout))
            self.logger.notice("response not read by its client: closing the connection",
                               metadata: ["path": "\(target ?? "")", "timeout": "\(self.limits.writeTimeout.nanoseconds / 1_000_000) ms"])
            self.close(context)
        }
    }

    // MARK: Ending

    /// Writes a whole response with `Connection: close` from here, under Hummingbird.
    @discardableResult
    private func writeAnswer(_ context: ChannelHandlerContext, status: HTTPResponseStatus, message: String) -> EventLoopFuture<Void> {
        let body = context.channel.allocator.buffer(string: message)
        let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Connection", "close"), ("Content-Length", "\(body.readableBytes)")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        return context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }

    private func close(_ context: ChannelHandlerContext) {
        guard phase != .closed else { return }
        phase = .closed
        cancelTimers()
        context.close(promise: nil)
    }

    private func cancelTimers() {
        for timer in [bodyTimer, writeTimer, refusalTimer] { timer?.cancel() }
        bodyTimer = nil
        writeTimer = nil
        refusalTimer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        cancelTimers()
        backlog.close()
        registry.remove(context.channel)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
    }
}
