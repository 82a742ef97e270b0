import PrefetchKit

/// A clock whose time moves only when a test says so.
///
/// Sleepers wake, in deadline order, when ``advance(by:)`` or ``advance(to:)`` moves the clock
/// past their deadline. ``waitForSleepers(_:)`` lets a test wait, without polling, until the
/// code under test has gone to sleep, so every step of a test is deterministic.
///
/// ```swift
/// let clock = ManualClock()
/// let fetcher = try AsyncFetcher(clock: clock, loader: loader)
/// await clock.waitForSleepers(1)   // the retry back-off started
/// clock.advance(by: .seconds(1))   // ...and ends now
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point in the manual clock's time: a duration since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// The time since the clock's origin.
        public var offset: Duration

        /// Creates an instant at `offset` from the origin.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Orders instants in time.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// The offset, such as `1.5 seconds`.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper: Sendable {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledBeforeSleeping: Set<Int> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// Creates a clock at time zero.
    public init() {}

    /// The current time.
    public var now: Instant { state.withLock { $0.now } }

    /// The clock's resolution: exact.
    public var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock reaches `deadline`, or throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, due, cancelled }
                let (outcome, ready) = state.withLock { s -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    if s.cancelledBeforeSleeping.remove(id) != nil { return (.cancelled, []) }
                    if deadline <= s.now { return (.due, []) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (.wait, Self.takeSatisfiedWatchers(&s))
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .due: continuation.resume()
                case .wait: break
                }
                for watcher in ready { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                s.cancelledBeforeSleeping.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "ManualClock.advance(by:) takes a non-negative duration, got \(duration)")
        let target = state.withLock { $0.now.advanced(by: duration) }
        advance(to: target)
    }

    /// Moves time forward to `instant` (never backward), waking sleepers in deadline order.
    public func advance(to instant: Instant) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            if instant > s.now { s.now = instant }
            let ready = s.sleepers.filter { $0.value.deadline <= s.now }
                .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (key, _) in ready { s.sleepers[key] = nil }
            return ready.compactMap(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// The earliest deadline of a sleeping task, or `nil` when none sleeps.
    ///
    /// A driver that also finishes other events at virtual times (a simulated network's loads)
    /// reads it to take the clock's and its own events in time order.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Suspends until at least `count` tasks are sleeping on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { s -> Bool in
                if s.sleepers.count >= count { return true }
                s.watchers.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    private static func takeSatisfiedWatchers(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = s.sleepers.count
        let ready = s.watchers.filter { $0.count <= count }.map(\.continuation)
        s.watchers.removeAll { $0.count <= count }
        return ready
    }
}
