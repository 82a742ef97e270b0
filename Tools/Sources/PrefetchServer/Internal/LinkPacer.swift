import NIOConcurrencyHelpers

/// What a body that may not reserve does: wait, go after all (a more urgent body ended meanwhile),
/// or stop (its task is cancelled).
private enum WaitOutcome { case wait, go, cancelled }

/// The answer to a body asking for its next chunk: send it at that time; wait (at most until the
/// more urgent bodies' chunks have left the link) and ask again; or, queued for the booking
/// window, ask again when its turn should have come.
private enum Turn { case send(at: Duration), wait(idleAt: Duration), queued(until: Duration) }

/// A body queued for the link's booking window: who, at what urgency, for how many bytes.
private struct Booking {
    let id: Int
    let urgency: Int
    let bytes: Int
}

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
/// A body that priority lets reserve joins the queue for the booking window
/// (``LinkBudget/bookingOpens(for:behind:at:)``), behind the bodies as urgent as it or more that
/// are already there and before the less urgent ones. Only the first body of the queue books, when
/// the window opens; each queued body sleeps on the clock until its turn should come (the window,
/// pushed back by the chunks of the bodies before it), so in the steady state each body wakes once
/// to book and once to send, and a body that finds its turn not come yet (a more urgent one joined
/// before it) sleeps again. A body that stops waiting (priority holds it back, or its task is
/// cancelled) leaves the queue; the ones behind it then book at most a few chunks late, which the
/// tolerance absorbs.
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
        /// The bodies waiting for the booking window: most urgent first, then in the order they came.
        var queue: [Booking] = []
        /// The bodies waiting for more urgent ones to end (or, on the clock beside, to stop using
        /// the link): their urgency and continuation, by sender id.
        var waiting: [Int: (urgency: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        /// Tests waiting until this many bodies wait.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Queues `sender` for the booking window if it is not queued yet, and books its chunk if
        /// it is first and the window is open; otherwise answers when to look again.
        mutating func book(_ bytes: Int, by sender: LinkSender, at now: Duration) -> Turn {
            let urgency = LinkBudget.level(sender.urgency)
            let place: Int
            if let queued = queue.firstIndex(where: { $0.id == sender.id }) {
                place = queued
            } else {
                place = queue.firstIndex { $0.urgency > urgency } ?? queue.endIndex
                queue.insert(Booking(id: sender.id, urgency: urgency, bytes: bytes), at: place)
            }
            let ahead = queue[..<place].reduce(Duration.zero) { $0 + budget.transmissionTime($1.bytes) }
            let opens = budget.bookingOpens(for: bytes, behind: ahead, at: now)
            if place == 0, opens <= now {
                queue.removeFirst()
                return .send(at: budget.reserve(bytes, at: now, urgency: sender.urgency))
            }
            // Behind a body whose turn has come but that has not booked yet (woken late): a chunk later.
            return .queued(until: opens > now ? opens : now + budget.transmissionTime(bytes))
        }
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

    /// How many bodies are queued for the booking window now.
    var queuedCount: Int { state.withLockedValue { $0.queue.count } }

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
        // However the call ends (sent, or cancelled while queued), the body is out of the queue.
        defer { state.withLockedValue { $0.queue.removeAll { $0.id == sender.id } } }
        while true {
            let now = origin.duration(to: clock.now)
            let turn = state.withLockedValue { s -> Turn in
                // Not allowed means that the more urgent bodies' chunks leave the link after `now`.
                guard s.budget.mayReserve(urgency: sender.urgency, at: now) else {
                    s.queue.removeAll { $0.id == sender.id }
                    return .wait(idleAt: s.budget.moreUrgentBusyUntil(urgency: sender.urgency) ?? now)
                }
                return s.book(bytes, by: sender, at: now)
            }
            switch turn {
            case .send(let at):
                if at > now { try await clock.sleep(until: origin.advanced(by: at), tolerance: nil) }
                return
            case .wait(let idleAt):
                // Then ask again: a more urgent body may have started or reserved more meanwhile.
                try await waitForTurn(sender, idleAt: idleAt)
            case .queued(let until):
                try await clock.sleep(until: origin.advanced(by: until), tolerance: nil)
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
