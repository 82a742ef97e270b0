import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// The app's disk cache on virtual time: the `DataStore` of the simulated app's fetcher.
///
/// A read of a stored value takes ``readLatency`` on the loop's clock (reading the bytes from
/// flash and decoding them into the value); it waits until the driver calls
/// ``completeNext(upTo:)`` at or after its deadline, as a network attempt does, and cancelling
/// its task ends it at once with nothing. A miss answers at once (an index look-up). A read moves
/// no bytes on the network. Writes cost nothing on the clock (they happen after the value was
/// delivered, off the way to the screen).
///
/// What the store holds is learnt from the fetcher's events (pass every event to ``record(_:)``,
/// as `VirtualTimeLoop` does): a value is stored once its load completed or its late result came
/// back, the moment the fetcher reports it, not when the worker's write task gets to run, so a
/// run repeats exactly whatever the threads do.
final class SimulatedStore<ID: Hashable & Sendable, Value: Sendable>: DataStore, Sendable {
    private struct Read: Sendable {
        var id: ID
        var item: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Value?, Never>
    }

    private struct State: Sendable {
        /// The items whose value is stored.
        var stored: Set<Int> = []
        /// Reads waiting for their deadline, by key.
        var reads: [Int: Read] = [:]
        var nextKey = 0
        /// Items whose load the store answered and whose completion the network has not heard of yet.
        var answered: [Int: Int] = [:]
    }

    /// How long a read of a stored value takes.
    let readLatency: Duration
    private let state = Locked(State())
    private let clock: ManualClock
    private let signal: ChangeSignal
    private let itemOf: @Sendable (ID) -> Int
    private let valueOf: @Sendable (ID) -> Value

    /// Creates an empty store whose reads take `readLatency` on `clock`.
    init(readLatency: Duration, clock: ManualClock, signal: ChangeSignal,
         item: @escaping @Sendable (ID) -> Int, value: @escaping @Sendable (ID) -> Value) {
        self.readLatency = readLatency
        self.clock = clock
        self.signal = signal
        self.itemOf = item
        self.valueOf = value
    }

    /// The stored value of `key` after ``readLatency``, or `nil` at once when none is stored (or
    /// when the read is cancelled).
    func value(for key: ID) async throws -> Value? {
        let item = itemOf(key)
        let readKey = state.withLock { s -> Int? in
            guard s.stored.contains(item) else { return nil }
            s.nextKey += 1
            return s.nextKey
        }
        guard let readKey else { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let cancelled = state.withLock { s -> Bool in
                    // Checked under the lock the cancel handler takes, so a cancel is never missed.
                    if Task.isCancelled { return true }
                    s.reads[readKey] = Read(id: key, item: item, deadline: clock.now.offset + readLatency, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(returning: nil) }
                signal.bump()
            }
        } onCancel: {
            let read = state.withLock { $0.reads.removeValue(forKey: readKey) }
            read?.continuation.resume(returning: nil)
            signal.bump()
        }
    }

    /// Stores `value` (already known stored from the fetcher's events).
    func store(_ value: Value, for key: ID) async throws {
        let item = itemOf(key)
        state.withLock { _ = $0.stored.insert(item) }
    }

    /// Forgets `key`'s value.
    func removeValue(for key: ID) async throws {
        let item = itemOf(key)
        state.withLock { _ = $0.stored.remove(item) }
    }

    /// Forgets every value.
    func removeAll() async throws {
        state.withLock { $0.stored.removeAll() }
    }

    /// Records one of the fetcher's events: a completed load or a late result is stored.
    ///
    /// Returns the event as the simulated network should see it: a load the store answered never
    /// reached the network, so its completion is, to the network, a load that ended without a
    /// call (reported as cancelled: it stops counting it as running and forgets its ordinal).
    func record(_ event: FetchEvent<ID>) -> FetchEvent<ID> {
        switch event {
        case .storeHit(let id):
            let item = itemOf(id)
            state.withLock { $0.answered[item, default: 0] += 1 }
        case .loadCompleted(let id, _):
            let item = itemOf(id)
            let fromStore = state.withLock { s -> Bool in
                s.stored.insert(item)
                guard let count = s.answered[item] else { return false }
                s.answered[item] = count > 1 ? count - 1 : nil
                return true
            }
            if fromStore { return .loadCancelled(id) }
        case .lateResult(let id):
            let item = itemOf(id)
            state.withLock { _ = $0.stored.insert(item) }
        default:
            break
        }
        return event
    }

    /// Reads waiting for their deadline.
    var pendingReads: Int { state.withLock { $0.reads.count } }

    /// How many values are stored.
    var count: Int { state.withLock { $0.stored.count } }

    /// When the next read ends.
    var nextDeadline: Duration? {
        state.withLock { $0.reads.values.map(\.deadline).min() }
    }

    /// Ends the earliest read due at or before `limit` (ties by item, then by order of arrival),
    /// after moving the clock to its deadline; returns its id, or nil when none is due.
    func completeNext(upTo limit: Duration) -> ID? {
        let due = state.withLock { s -> Read? in
            guard let key = s.reads.filter({ $0.value.deadline <= limit })
                .min(by: { ($0.value.deadline, $0.value.item, $0.key) < ($1.value.deadline, $1.value.item, $1.key) })?.key
            else { return nil }
            return s.reads.removeValue(forKey: key)
        }
        guard let due else { return nil }
        clock.advance(to: ManualClock.Instant(offset: due.deadline))
        due.continuation.resume(returning: valueOf(due.id))
        return due.id
    }
}
