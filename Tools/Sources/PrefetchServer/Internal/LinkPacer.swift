import NIOConcurrencyHelpers

/// The rule of the server's shared bandwidth, on its own: when may the next chunk of some body go,
/// so that all bodies together send at most `bytesPerSecond`?
///
/// A virtual-time pacer (the shaping form of the generic cell rate algorithm): the link is busy
/// until `busyUntil`; a chunk reserved at `now` goes when the link frees up (or at once, if it is
/// already free), less a small `tolerance` so a sender woken late does not lose the link's time
/// for good, and makes the link busy for its own transmission time after that. Idle time earns no
/// credit beyond the tolerance. Each body reserves its next chunk only after sending the last, so
/// bodies sending at once take turns, chunk by chunk, and N of them get about 1/N each.
///
/// Beside the rate, priority (RFC 9218's urgencies, 0 most urgent to 7): the budget counts the
/// bodies being sent at each urgency (``register(urgency:)`` to ``unregister(urgency:)``) and when
/// what each urgency reserved last leaves the link (`reservedUntil`). A body may reserve its next
/// chunk (``mayReserve(urgency:at:)``) unless a more urgent body is being sent *and using the link*:
/// precisely, it may when ``moreUrgentBusyUntil(urgency:)`` (the latest end of what the more
/// urgent urgencies being sent have reserved) is nil or not after `now`. With one more urgent
/// urgency this is "the link is idle as far as it is concerned": `busyUntil ?? now <= now` over its
/// chunks. Bodies of one urgency share the link as above.
///
/// The rule is work-conserving, as RFC 9218 (section 10) asks of a server: a more urgent body that
/// does not use the link (held to its own `--bandwidth`, paused by a slow-body fault, or stuck on a
/// client that stopped reading) does not leave it idle while less urgent bodies wait. It stays
/// strict for a body that does use the link: each body reserves its next chunk as soon as it has
/// sent the last, so a body keeping up has reserved at least one chunk beyond `now` (one chunk and
/// the tolerance ahead when it is woken on time), and never looks idle. Counting by urgency rather
/// than the whole link keeps the order among the bodies that fill the gaps: behind a stalled
/// `u=1`, a prefetch (`u=3`) streams, and a background load (`u=5`) gets only what the prefetch
/// leaves. A more urgent body that comes back finds at most the tolerance and one chunk of less
/// urgent data ahead on the link's schedule, and since a chunk goes up to the tolerance before its
/// turn, its own chunk goes out within about one chunk (chunks are about 20 ms).
///
/// The tolerance plays no part in the test on purpose: waiting `tolerance` past the more urgent
/// reservations would starve less urgent bodies behind a more urgent one that asks for a chunk more
/// often than that (a 1 KiB chunk every 50 ms at `--bandwidth 20000`), and going `tolerance` before
/// them would cut into the look-ahead of a more urgent body that keeps up.
struct LinkBudget: Sendable, Equatable {
    /// The link's rate.
    let bytesPerSecond: Int
    /// How far ahead of the link's schedule a chunk may go.
    let tolerance: Duration
    /// When the link will have sent everything reserved so far (nil before the first chunk).
    private(set) var busyUntil: Duration?
    /// How many bodies are being sent at each urgency: index 0 (most urgent) to 7.
    private(set) var senders = [Int](repeating: 0, count: RequestPriority.urgencies.count)
    /// When the chunk each urgency reserved last leaves the link (nil before its first chunk).
    private(set) var reservedUntil = [Duration?](repeating: nil, count: RequestPriority.urgencies.count)

    /// - Parameter tolerance: 100 ms by default: a sender woken up to that late (a loaded machine)
    ///   still keeps the link's rate, and a burst after an idle spell is at most 0.1 s of the link.
    init(bytesPerSecond: Int, tolerance: Duration = .milliseconds(100)) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.tolerance = tolerance
    }

    /// How long `bytes` take on the link.
    func transmissionTime(_ bytes: Int) -> Duration {
        .nanoseconds(Int64(bytes) * 1_000_000_000 / Int64(bytesPerSecond))
    }

    /// Reserves the link for `bytes` of a body of `urgency` asked for at `now` (time since any
    /// fixed origin); returns when they may be sent, never before `now`.
    mutating func reserve(_ bytes: Int, at now: Duration, urgency: Int = RequestPriority.defaultUrgency) -> Duration {
        let free = max(busyUntil ?? now, now)
        busyUntil = free + transmissionTime(bytes)
        reservedUntil[Self.level(urgency)] = busyUntil
        return max(now, free - tolerance)
    }

    /// Counts a body of `urgency` as being sent, until ``unregister(urgency:)``; an urgency outside
    /// 0...7 counts as the nearest one.
    mutating func register(urgency: Int) {
        senders[Self.level(urgency)] += 1
    }

    /// Counts a body registered at `urgency` out: it ended, failed or was cancelled.
    mutating func unregister(urgency: Int) {
        let level = Self.level(urgency)
        assert(senders[level] > 0, "unregister(urgency: \(urgency)) without a body registered at that urgency")
        senders[level] = max(0, senders[level] - 1)
    }

    /// The most urgent urgency of the bodies being sent, or nil when none is.
    var mostUrgent: Int? { senders.firstIndex { $0 > 0 } }

    /// Whether a body more urgent than `urgency` is being sent, using the link or not.
    func isOutranked(urgency: Int) -> Bool {
        mostUrgent.map { Self.level(urgency) > $0 } ?? false
    }

    /// When the chunks reserved by the bodies more urgent than `urgency` that are being sent leave
    /// the link (the latest end), or nil when they have reserved none (or none is being sent).
    func moreUrgentBusyUntil(urgency: Int) -> Duration? {
        (0..<Self.level(urgency)).filter { senders[$0] > 0 }.compactMap { reservedUntil[$0] }.max()
    }

    /// Whether a body of `urgency` may reserve its next chunk at `now`: no more urgent body being
    /// sent has anything reserved beyond `now` (none is being sent, or they have not asked for
    /// their next chunk in time). When it may not, it may at ``moreUrgentBusyUntil(urgency:)`` at
    /// the earliest, unless they reserve more meanwhile.
    func mayReserve(urgency: Int, at now: Duration) -> Bool {
        (moreUrgentBusyUntil(urgency: urgency) ?? now) <= now
    }

    private static func level(_ urgency: Int) -> Int {
        min(max(urgency, RequestPriority.urgencies.lowerBound), RequestPriority.urgencies.upperBound)
    }
}

/// What a body that may not reserve does: wait, go after all (a more urgent body ended meanwhile),
/// or stop (its task is cancelled).
private enum WaitOutcome { case wait, go, cancelled }

/// The answer to a body asking for its next chunk: send it at that time, or wait (at most until
/// the more urgent bodies' chunks have left the link) and ask again.
private enum Turn { case send(at: Duration), wait(idleAt: Duration) }

/// A body being sent through a ``ChunkPacing``: its identity and the urgency it counts at.
struct LinkSender: Sendable, Hashable {
    /// Unique among the pacer's senders.
    let id: Int
    /// The urgency the pacer counts the body at (the default one when the pacer ignores priority).
    let urgency: Int
}

/// Something that spaces body chunks out: the shared link of a ``DataServer``, or nothing.
///
/// A body registers once before its first chunk and unregisters once however it ends (a `defer`),
/// so that a less urgent body waiting for it always resumes.
protocol ChunkPacing: Sendable {
    /// Counts a body of `urgency` (RFC 9218: 0 most urgent to 7) as being sent until ``unregister(_:)``.
    func register(urgency: Int) -> LinkSender
    /// Returns when `sender` may send `bytes` more; throws `CancellationError` if cancelled meanwhile.
    func beforeSending(_ bytes: Int, by sender: LinkSender) async throws
    /// Counts `sender` out, and wakes the waiting bodies it leaves with no more urgent body.
    func unregister(_ sender: LinkSender)
}

/// A ``LinkBudget`` on a clock, shared by every response of a server.
///
/// A body that may not reserve (more urgent bodies are being sent and have chunks reserved beyond
/// now) waits until the first of: the last more urgent body is counted out (``unregister(_:)``
/// wakes it), or the clock reaches ``LinkBudget/moreUrgentBusyUntil(urgency:)``, when their chunks
/// have left the link, so it may go unless they reserved more meanwhile; then it asks again. An
/// unregister wakes only the bodies it leaves with no more urgent one registered, so that when a
/// visible body ends the prefetch, not the background load, takes the link; one that leaves a
/// more urgent body registered but idle lets the waiting one go at its clock wake-up, at most a
/// chunk later. At most one wake per chunk the more urgent bodies reserve: no polling. Its task's
/// cancellation ends the wait at once and leaves nothing behind.
final class LinkPacer<C: Clock>: ChunkPacing where C.Duration == Duration {
    private struct State {
        var budget: LinkBudget
        var nextID = 0
        /// The bodies waiting for more urgent ones to end (or, on the clock beside, to stop using
        /// the link): their urgency and continuation, by sender id.
        var waiting: [Int: (urgency: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Tests waiting until this many bodies wait.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let clock: C
    private let origin: C.Instant
    /// When false, every body counts at the default urgency, so all share the link alike.
    let honoursPriority: Bool
    private let state: NIOLockedValueBox<State>

    init(bytesPerSecond: Int, honoursPriority: Bool = true, clock: C, tolerance: Duration = .milliseconds(100)) {
        self.clock = clock
        self.honoursPriority = honoursPriority
        origin = clock.now
        state = NIOLockedValueBox(State(budget: LinkBudget(bytesPerSecond: bytesPerSecond, tolerance: tolerance)))
    }

    /// The rate, for choosing chunk sizes.
    var bytesPerSecond: Int { state.withLockedValue { $0.budget.bytesPerSecond } }

    /// The budget as it stands, for tests.
    var budget: LinkBudget { state.withLockedValue { $0.budget } }

    /// How many bodies wait for more urgent ones now.
    var waitingCount: Int { state.withLockedValue { $0.waiting.count } }

    func register(urgency: Int) -> LinkSender {
        let urgency = honoursPriority ? urgency : RequestPriority.defaultUrgency
        return state.withLockedValue { s in
            s.nextID += 1
            s.budget.register(urgency: urgency)
            return LinkSender(id: s.nextID, urgency: urgency)
        }
    }

    func unregister(_ sender: LinkSender) {
        let ready = state.withLockedValue { s -> [CheckedContinuation<Void, any Error>] in
            s.budget.unregister(urgency: sender.urgency)
            let ready = s.waiting.filter { !s.budget.isOutranked(urgency: $0.value.urgency) }
            for id in ready.keys { s.waiting[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    func beforeSending(_ bytes: Int, by sender: LinkSender) async throws {
        while true {
            let now = origin.duration(to: clock.now)
            let turn = state.withLockedValue { s -> Turn in
                // Not allowed means that the more urgent bodies' chunks leave the link after `now`.
                s.budget.mayReserve(urgency: sender.urgency, at: now)
                    ? .send(at: s.budget.reserve(bytes, at: now, urgency: sender.urgency))
                    : .wait(idleAt: s.budget.moreUrgentBusyUntil(urgency: sender.urgency) ?? now)
            }
            switch turn {
            case .send(let at):
                if at > now { try await clock.sleep(until: origin.advanced(by: at), tolerance: nil) }
                return
            case .wait(let idleAt):
                // Then ask again: a more urgent body may have started or reserved more meanwhile.
                try await waitForTurn(sender, idleAt: idleAt)
            }
        }
    }

    /// Suspends until an unregister lets `sender` reserve or the clock reaches `idleAt` (time since
    /// the origin), whichever comes first, or throws `CancellationError`.
    ///
    /// Two child tasks race; the first to return cancels the other, which leaves the waiters or
    /// the clock's sleepers, and the group awaits it before returning: nothing outlives the call.
    private func waitForTurn(_ sender: LinkSender, idleAt: Duration) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.waitForUnregister(sender) }
            group.addTask { try await self.clock.sleep(until: self.origin.advanced(by: idleAt), tolerance: nil) }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until no body more urgent than `sender` is being sent (an ``unregister(_:)`` wakes
    /// it), or throws `CancellationError`.
    private func waitForUnregister(_ sender: LinkSender) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancellation sets the flag before it runs the handler below, and both take the
                // lock: either the handler finds the waiter, or the flag is seen here.
                let (outcome, watchers) = state.withLockedValue { s -> (WaitOutcome, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.cancelled, []) }
                    if !s.budget.isOutranked(urgency: sender.urgency) { return (.go, []) }
                    s.waiting[sender.id] = (sender.urgency, continuation)
                    let satisfied = s.watchers.filter { $0.count <= s.waiting.count }
                    s.watchers.removeAll { $0.count <= s.waiting.count }
                    return (.wait, satisfied.map(\.continuation))
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .go: continuation.resume()
                case .wait: break
                }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLockedValue { $0.waiting.removeValue(forKey: sender.id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` bodies wait for more urgent ones: a test's step without polling.
    func waitForWaiting(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { s in
                if s.waiting.count >= count { return true }
                s.watchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The pacer of `bytesPerSecond` on `clock`, or nil for no limit.
    static func make(bytesPerSecond: Int?, honoursPriority: Bool, clock: C) -> LinkPacer? {
        bytesPerSecond.map { LinkPacer(bytesPerSecond: $0, honoursPriority: honoursPriority, clock: clock) }
    }
}
