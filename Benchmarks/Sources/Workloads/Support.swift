import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The value both fetchers load: a class, as the sample's `DisplayData` (and `NSCache`) need.
public final class DisplayData: Sendable {
    public let id: Int
    public init(_ id: Int) { self.id = id }
}

/// Counts answers down to zero; the measuring thread blocks until every one has arrived.
///
/// Every benchmark closure is synchronous and runs on the runner's own thread, not on the
/// cooperative pool, so blocking here starves neither fetcher.
public final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)

    public init(_ count: Int) { remaining = Atomic(count) }

    public func arrive() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
    }

    public func wait() { done.wait() }
}

/// A gate that loads wait at until it opens: PrefetchKit's loads wait by suspending.
public final class AsyncGate: Sendable {
    private enum State { case closed([CheckedContinuation<Void, Never>]), open }
    private let state = Mutex(State.closed([]))

    public init() {}

    public func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                guard case .closed(var waiters) = s else { return true }
                waiters.append(c)
                s = .closed(waiters)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    public func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard case .closed(let waiters) = s else { return [] }
            s = .open
            return waiters
        }
        for c in waiters { c.resume() }
    }
}

/// A gate that loads wait at until it opens: the baseline's loads block their thread, as the
/// sample's operations do.
public final class BlockingGate: Sendable {
    private let group = DispatchGroup()

    public init() { group.enter() }

    public func wait() { group.wait() }

    public func open() { group.leave() }
}

/// A PrefetchKit loader that never completes: it suspends until its task is cancelled.
///
/// It counts the loads inside it, so a benchmark can wait, outside its measurement, until the
/// cancelled loads have left before the next iteration starts.
public final class HangingLoader: Sendable {
    private let inside = Atomic<Int>(0)

    public init() {}

    public var loadsInside: Int { inside.load(ordering: .acquiring) }

    public func load(_ id: Int) async throws -> DisplayData {
        inside.add(1, ordering: .acquiringAndReleasing)
        defer { inside.subtract(1, ordering: .acquiringAndReleasing) }
        let suspension = Suspension()
        try await withTaskCancellationHandler {
            try await suspension.wait()
        } onCancel: {
            suspension.cancel()
        }
        throw CancellationError()
    }

    /// Spins politely until no load is inside (used between iterations, never measured).
    public func waitUntilEmpty() {
        while loadsInside > 0 { usleep(50) }
    }
}

/// One suspension that only cancellation ends.
final class Suspension: Sendable {
    private enum State { case idle, waiting(CheckedContinuation<Void, any Error>), cancelled }
    private let state = Mutex(State.idle)

    func wait() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let cancelled = state.withLock { s -> Bool in
                if case .cancelled = s { return true }
                s = .waiting(c)
                return false
            }
            if cancelled { c.resume(throwing: CancellationError()) }
        }
    }

    func cancel() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            defer { s = .cancelled }
            if case .waiting(let c) = s { return c }
            return nil
        }
        waiter?.resume(throwing: CancellationError())
    }
}
