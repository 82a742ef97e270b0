import NIOConcurrencyHelpers

/// The body bytes of one connection written and not yet taken by its socket, and a way for a
/// body to wait until they are few.
///
/// A body's write returns as soon as NIO's writer has queued the chunk for the event loop: the
/// writer stops only once the event loop has seen the socket's buffer full, and the event loop
/// is late when the machine is busy. Forty bodies whose clients' buffers were still filling
/// queued tens of megabytes that way. The ``BodyStreamer`` counts each chunk in before it writes
/// it and waits here before it makes the next one (``waitForRoom(below:)``); the
/// ``ConnectionGuard`` counts body bytes out as the socket takes them (or the write fails). So a
/// connection holds at most about ``BodyStreamer/maxBacklog`` plus one chunk, however slowly its
/// client reads. Bodies written by others (a `503`, a `416`) are counted out only, never below zero.
final class OutboundBacklog: Sendable {
    private struct State {
        var bytes = 0
        var closed = false
        var waiters: [(limit: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    /// The bytes handed on and not yet taken.
    var bytes: Int { state.withLockedValue { $0.bytes } }

    /// Counts `count` bytes about to be written.
    func added(_ count: Int) {
        state.withLockedValue { $0.bytes += count }
    }

    /// Counts `count` bytes taken by the socket (or dropped), and wakes the bodies that have room now.
    func taken(_ count: Int) {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.bytes = max(0, s.bytes - count)
            let bytes = s.bytes
            let ready = s.waiters.filter { bytes < $0.limit }.map(\.continuation)
            s.waiters.removeAll { bytes < $0.limit }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// The connection closed: no body waits any more (its next write fails instead).
    func close() {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.closed = true
            defer { s.waiters.removeAll() }
            return s.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once fewer than `limit` bytes wait for the socket, or the connection has closed.
    ///
    /// Not cancellable on purpose: the connection's closing (the write timeout, a stop) ends every
    /// wait, and a stopped server closes every connection.
    func waitForRoom(below limit: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { s -> Bool in
                if s.closed || s.bytes < limit { return true }
                s.waiters.append((limit, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
