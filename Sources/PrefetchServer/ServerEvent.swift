import Foundation
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

    /// The request path the event is about.
    public var path: String {
        switch self {
        case .request(let p, _), .responded(let p, _), .completed(let p, _),
             .clientDisconnected(let p, _, _), .reset(let p, _): p
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
        }
    }
}

/// The server's record of events, with a way to wait, without polling, until one happens.
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
    }

    private let state = NIOLockedValueBox(State())

    /// Creates an empty log.
    public init() {}

    /// Every event so far, oldest first.
    public var events: [ServerEvent] { state.withLockedValue { $0.events } }

    /// The most requests that were in progress at once.
    public var peakInFlight: Int { state.withLockedValue { $0.peakInFlight } }

    /// The number of requests received.
    public var requestCount: Int {
        state.withLockedValue { $0.events.reduce(0) { if case .request = $1 { $0 + 1 } else { $0 } } }
    }

    /// Appends an event and wakes the waiters it satisfies.
    public func record(_ event: ServerEvent) {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.events.append(event)
            return Self.takeSatisfied(&s)
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
