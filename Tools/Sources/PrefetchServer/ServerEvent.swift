import Foundation
import PrefetchToolSupport
import NIOConcurrencyHelpers

/// Something the server did or saw, recorded for logs and tests.
public enum ServerEvent: Sendable, Hashable, CustomStringConvertible {
    /// A request arrived; `attempt` counts earlier requests to the same path (0 for the first).
    case request(path: String, attempt: Int)
    /// A response head was sent.
    case responded(path: String, status: Int)
    /// The body of a response was sent completely.
    case completed(path: String, bytes: Int)
    /// The client went away before the body was complete.
    case clientDisconnected(path: String, bytesSent: Int, of: Int)
    /// The server reset the connection on purpose (an injected fault).
    case reset(path: String, bytesSent: Int)
    /// The server refused a new connection (`503`, then closed) because ``DataServer/connectionLimit``
    /// connections were open and none had kept it waiting long enough to make room; `open` is how
    /// many were open.
    case connectionRefused(open: Int)
    /// The server closed a connection before its client did, for `reason`; `path` is the request
    /// it was reading or answering then, if any.
    case connectionClosed(path: String?, reason: ConnectionCloseReason)

    /// The request path the event is about; empty for a connection that had no request.
    public var path: String {
        switch self {
        case .request(let p, _), .responded(let p, _), .completed(let p, _),
             .clientDisconnected(let p, _, _), .reset(let p, _): p
        case .connectionRefused: ""
        case .connectionClosed(let p, _): p ?? ""
        }
    }

    /// A one-line description for logs.
    public var description: String {
        switch self {
        case .request(let p, let a): "request \(p) attempt \(a)"
        case .responded(let p, let s): "responded \(p) \(s)"
        case .completed(let p, let b): "completed \(p) \(b) bytes"
        case .clientDisconnected(let p, let sent, let total): "client disconnected mid-body \(p) after \(sent) of \(total) bytes"
        case .reset(let p, let sent): "reset \(p) after \(sent) bytes"
        case .connectionRefused(let open): "refused a connection with \(open) open"
        case .connectionClosed(let p, let reason): "closed a connection \(p.map { "during \($0) " } ?? "")for \(reason)"
        }
    }
}

/// Why the server closed a connection before its client did (``ServerEvent/connectionClosed(path:reason:)``).
public enum ConnectionCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// A request body longer than ``ServerConfiguration/maxRequestBodySize``, declared or sent
    /// (answered `413` when no response was under way).
    case requestBodyTooLarge
    /// A request body that had not arrived whole ``ServerConfiguration/requestBodyTimeout`` (by
    /// default the ``ServerConfiguration/idleTimeout``) after its head.
    case requestTimeout
    /// A response that made no progress (its client read none of it) for ``ServerConfiguration/writeTimeout``.
    case writeTimeout
    /// Closed to make room for a new connection at ``DataServer/connectionLimit``: of the open
    /// connections, it had kept the server waiting for a request longest.
    case evicted

    /// A few words for logs.
    public var description: String {
        switch self {
        case .requestBodyTooLarge: "a request body over the limit"
        case .requestTimeout: "a request body that did not arrive in time"
        case .writeTimeout: "a response its client stopped reading"
        case .evicted: "room for a new connection"
        }
    }
}

/// The server's record of its latest events, with a way to wait, without polling, until one happens.
///
/// It keeps the latest ``capacity`` events and counts every request, so a server that runs for
/// hours holds a bounded log.
public final class ServerEventLog: Sendable {
    private struct Waiter: Sendable {
        var predicate: @Sendable ([ServerEvent]) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State: Sendable {
        var events: [ServerEvent] = []
        var waiters: [Waiter] = []
        var inFlight = 0
        var peakInFlight = 0
        var requestCount = 0
    }

    private let state = NIOLockedValueBox(State())
    /// The most events kept; older ones are forgotten, so a long-running server stays bounded.
    public let capacity: Int

    /// The default ``capacity``.
    public static let defaultCapacity = 1_024

    /// Creates an empty log that keeps the latest `capacity` events (at least 1).
    public init(capacity: Int = ServerEventLog.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The latest events (at most ``capacity``), oldest first.
    public var events: [ServerEvent] { state.withLockedValue { $0.events } }

    /// The most requests that were in progress at once.
    public var peakInFlight: Int { state.withLockedValue { $0.peakInFlight } }

    /// The number of requests received, forgotten events included.
    public var requestCount: Int { state.withLockedValue { $0.requestCount } }

    /// Appends an event, forgetting the oldest beyond ``capacity``, and wakes the waiters it satisfies.
    ///
    /// Waiters see every event: each is checked against the log right after each event is added.
    public func record(_ event: ServerEvent) {
        let capacity = capacity
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            if case .request = event { s.requestCount += 1 }
            s.events.append(event)
            let ready = Self.takeSatisfied(&s)
            if s.events.count > capacity {
                // Forget in chunks of an eighth, so trimming costs O(1) per event on average.
                s.events.removeFirst(min(s.events.count, s.events.count - capacity + capacity / 8))
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Suspends until `predicate` holds for the events recorded so far.
    public func wait(until predicate: @escaping @Sendable ([ServerEvent]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLockedValue { s -> Bool in
                if predicate(s.events) { return true }
                s.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Suspends until an event matching `match` is recorded (or was already).
    public func wait(for match: @escaping @Sendable (ServerEvent) -> Bool) async {
        await wait(until: { $0.contains(where: match) })
    }

    /// The requests in progress now, for tests.
    var inFlight: Int { state.withLockedValue { $0.inFlight } }

    func enter() { state.withLockedValue { s in s.inFlight += 1; s.peakInFlight = max(s.peakInFlight, s.inFlight) } }
    func leave() { state.withLockedValue { $0.inFlight -= 1 } }

    private static func takeSatisfied(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        s.waiters.removeAll { waiter in
            guard waiter.predicate(s.events) else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}

/// One request counted in progress in a ``ServerEventLog`` (its ``ServerEventLog/peakInFlight``),
/// from its arrival until its response ends or is given up, counted out exactly once.
///
/// However the request ends: ``leave()`` when its handler fails or its body ends, or, failing
/// that, when the last reference goes: Hummingbird drops a response without running its body
/// closure when it cannot write the head (the client went away during an injected latency).
final class InFlightRequest: Sendable {
    private let events: ServerEventLog
    private let counted = NIOLockedValueBox(true)

    /// Counts a request in.
    init(_ events: ServerEventLog) {
        self.events = events
        events.enter()
    }

    /// Counts the request out, the first time only.
    func leave() {
        let wasCounted = counted.withLockedValue { counted in
            defer { counted = false }
            return counted
        }
        if wasCounted { events.leave() }
    }

    deinit { leave() }
}
