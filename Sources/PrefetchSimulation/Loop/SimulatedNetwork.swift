import Foundation
import PrefetchKit
import PrefetchTesting

/// The failure of one simulated attempt. Retryable, so the fetcher's `RetryPolicy` decides
/// whether another attempt follows.
///
/// When the fetcher lets go of a failure it has finished with it (its consumers have heard), so
/// a load's last failure tells the network as it goes: that is how a virtual-time driver learns
/// that a failed load has ended for good.
final class SimulatedLoadFailure: Error, RetryableError, CustomStringConvertible, Sendable {
    /// The item whose load failed.
    let item: Int
    /// The attempt that failed, from 1.
    let attempt: Int
    private let released: @Sendable () -> Void

    init(item: Int, attempt: Int, released: @escaping @Sendable () -> Void) {
        self.item = item
        self.attempt = attempt
        self.released = released
    }

    deinit { released() }

    /// Always `true`: the fetcher's retry policy decides.
    var isRetryable: Bool { true }

    /// `simulated failure of item 3, attempt 1`.
    var description: String { "simulated failure of item \(item), attempt \(attempt)" }
}

/// A network on virtual time: the loader of an ``AsyncFetcher`` in the simulator and in the
/// demo's scripted runs.
///
/// A load that reaches ``load(_:)`` waits until the driver calls ``completeNext(upTo:)`` at or
/// after its deadline; cancelling its task ends it at once with `CancellationError`. Each
/// attempt's latency and outcome come from the ``LatencyModel``, keyed by the seed, the item,
/// the load's ordinal (how many loads of the item the fetcher started before) and the attempt,
/// so a run repeats exactly whatever the threads do. A failed attempt throws a
/// `SimulatedLoadFailure`; the fetcher's `RetryPolicy` waits on the `ManualClock` and calls
/// again, and the next call is that load's next attempt.
///
/// The network learns when loads start and are cancelled from the fetcher's events: pass
/// every event to ``record(_:)`` (`VirtualTimeLoop` does).
final class SimulatedNetwork<ID: Hashable & Sendable, Value: Sendable>: DataLoader, Sendable {
    private struct Call: Sendable {
        var id: ID
        var item: Int
        var attempt: Int
        var ordinal: Int?
        var start: Duration
        var deadline: Duration?
        var fails = false
        var continuation: CheckedContinuation<Value, any Error>
    }

    private struct State: Sendable {
        var calls: [Int: Call] = [:]
        var nextKey = 0
        /// Loads the fetcher started, per item.
        var loadsStarted: [Int: Int] = [:]
        /// The ordinal of a load whose start event came before its first call.
        var ordinalWaitingForCall: [Int: Int] = [:]
        /// Loads between a failed attempt and their next one: item → (ordinal, failed attempt).
        var backingOff: [Int: (ordinal: Int, attempt: Int)] = [:]
        /// Back-offs the driver woke whose next attempt has not arrived.
        var inTransit = 0
        /// Attempts that ended here whose outcome the fetcher has not finished processing.
        var finishing = 0
        /// Loads running, by the fetcher's events: started less completed, cancelled and failed for good.
        var running = 0
        var latency: LatencyModel
    }

    /// What the network holds now, for a driver's test of rest.
    package struct Occupancy: Sendable, Hashable {
        /// Calls waiting for their deadline.
        package var waiting: Int
        /// Loads between a failed attempt and their retry.
        package var backingOff: Int
        /// Back-offs woken by the driver whose retry has not arrived.
        package var inTransit: Int
        /// Calls whose load ordinal is not known yet (their start event has not been recorded).
        package var undrawn: Int
        /// Loads that ended here (with a value, or a last failure) that the fetcher is still finishing.
        package var finishing: Int = 0
        /// Loads running by the fetcher's events: started, less completed, cancelled and failed for good.
        package var running: Int = 0
    }

    private let state: Locked<State>
    /// Seeds every draw.
    let seed: UInt64
    /// The payload size of one item, for bandwidth-bound latency.
    let payloadBytes: Int
    private let retry: RetryPolicy
    private let clock: ManualClock
    private let signal: ChangeSignal
    private let itemOf: @Sendable (ID) -> Int
    private let valueOf: @Sendable (ID) -> Value

    /// Creates a network.
    ///
    /// - Parameters:
    ///   - retry: the fetcher's retry policy, to know whether a failed attempt is the load's last.
    ///   - item: the item index of an id: draws are keyed by it.
    ///   - value: the value a successful load returns.
    package init(
        latency: LatencyModel, seed: UInt64, payloadBytes: Int = 0, retry: RetryPolicy, clock: ManualClock,
        signal: ChangeSignal, item: @escaping @Sendable (ID) -> Int, value: @escaping @Sendable (ID) -> Value
    ) {
        precondition(payloadBytes >= 0, "SimulatedNetwork payloadBytes is \(payloadBytes), but it must be 0 or more")
        self.state = Locked(State(latency: latency))
        self.seed = seed
        self.payloadBytes = payloadBytes
        self.retry = retry
        self.clock = clock
        self.signal = signal
        self.itemOf = item
        self.valueOf = value
    }

    /// How long attempts take and how often they fail; a change applies to attempts drawn afterwards.
    var latency: LatencyModel {
        get { state.withLock { $0.latency } }
        set { state.withLock { $0.latency = newValue } }
    }

    /// Waits for the attempt's deadline, then returns the id's value or throws a `SimulatedLoadFailure`.
    func load(_ id: ID) async throws -> Value {
        let item = itemOf(id)
        let key = state.withLock { s -> Int in
            s.nextKey += 1
            return s.nextKey
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    // Checked under the lock the cancel handler takes, so a cancel is never missed.
                    if Task.isCancelled { return true }
                    var call = Call(id: id, item: item, attempt: 1, start: clock.now.offset, continuation: continuation)
                    if let retrying = s.backingOff.removeValue(forKey: item) {
                        call.attempt = retrying.attempt + 1
                        call.ordinal = retrying.ordinal
                        s.inTransit -= 1
                    } else {
                        call.ordinal = s.ordinalWaitingForCall.removeValue(forKey: item)
                    }
                    s.calls[key] = Self.drawn(call, s.latency, seed, payloadBytes)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                signal.bump()
            }
        } onCancel: {
            let call = state.withLock { $0.calls.removeValue(forKey: key) }
            call?.continuation.resume(throwing: CancellationError())
            signal.bump()
        }
    }

    /// Records one of the fetcher's events: a load start numbers the item's loads, a
    /// cancellation ends a back-off.
    package func record(_ event: FetchEvent<ID>) {
        switch event {
        case .loadStarted(let id):
            let item = itemOf(id)
            state.withLock { s in
                s.running += 1
                let ordinal = s.loadsStarted[item, default: 0]
                s.loadsStarted[item] = ordinal + 1
                if let key = s.calls.first(where: { $0.value.item == item && $0.value.ordinal == nil })?.key {
                    s.calls[key]?.ordinal = ordinal
                    s.calls[key] = Self.drawn(s.calls[key]!, s.latency, seed, payloadBytes)
                } else {
                    s.ordinalWaitingForCall[item] = ordinal
                }
            }
        case .loadCompleted:
            state.withLock { s in
                s.finishing -= 1
                s.running -= 1
            }
        case .loadFailed(_, let error, let willRetry):
            // The network's own last failure ends the load (a cache error after a value does not).
            if !willRetry, error is SimulatedLoadFailure { state.withLock { $0.running -= 1 } }
        case .loadCancelled(let id):
            let item = itemOf(id)
            state.withLock { s in
                s.running -= 1
                s.ordinalWaitingForCall[item] = nil
                s.backingOff[item] = nil
            }
        default:
            break
        }
    }

    private static func drawn(_ call: Call, _ latency: LatencyModel, _ seed: UInt64, _ payloadBytes: Int) -> Call {
        guard let ordinal = call.ordinal, call.deadline == nil else { return call }
        var call = call
        let draw = latency.drawSeconds(seed: seed, item: call.item, load: ordinal, attempt: call.attempt, payloadBytes: payloadBytes)
        call.deadline = call.start + .seconds(exactly: draw.latency)
        call.fails = draw.fails
        return call
    }

    /// What the network holds now.
    package var occupancy: Occupancy {
        state.withLock { s in
            Occupancy(waiting: s.calls.count, backingOff: s.backingOff.count, inTransit: s.inTransit,
                      undrawn: s.calls.values.filter { $0.deadline == nil }.count, finishing: s.finishing, running: s.running)
        }
    }

    /// The driver woke `count` back-off sleepers on the clock: their next attempts are on their way.
    package func wokeBackOffs(_ count: Int) {
        state.withLock { $0.inTransit += count }
    }

    /// The earliest deadline of a waiting call.
    package var nextDeadline: Duration? {
        state.withLock { $0.calls.values.compactMap(\.deadline).min() }
    }

    /// The deadlines of the attempts waiting now, by item.
    package var deadlines: [Int: Duration] {
        state.withLock { s in
            var result: [Int: Duration] = [:]
            for call in s.calls.values { if let deadline = call.deadline { result[call.item] = deadline } }
            return result
        }
    }

    /// Whether a load of `item` waits here or backs off before its next attempt.
    package func isLoading(_ item: Int) -> Bool {
        state.withLock { s in s.backingOff[item] != nil || s.calls.values.contains { $0.item == item } }
    }

    /// How long the next load of `item` will take, every attempt and back-off included (each
    /// back-off at its longest, without jitter), and whether it will succeed.
    package func plannedLoad(of item: Int) -> (seconds: Double, succeeds: Bool) {
        let (ordinal, latency) = state.withLock { ($0.loadsStarted[item, default: 0], $0.latency) }
        var total = 0.0
        for attempt in 1...max(1, retry.maxAttempts) {
            let draw = latency.drawSeconds(seed: seed, item: item, load: ordinal, attempt: attempt, payloadBytes: payloadBytes)
            total += draw.latency
            if !draw.fails { return (total, true) }
            if attempt < retry.maxAttempts { total += retry.delay(afterAttempt: attempt, random: 0).seconds }
        }
        return (total, false)
    }

    /// Ends the waiting attempt with the earliest deadline at or before `limit` (ties by item),
    /// after moving the clock to that deadline. Returns its id and whether its load ended (with a
    /// value or its last failure; `false` when the fetcher will retry), or nil when none is due.
    package func completeNext(upTo limit: Duration) -> (id: ID, loadEnded: Bool)? {
        let due = state.withLock { s -> Call? in
            let drawn = s.calls.filter { $0.value.deadline != nil }
            guard let (key, call) = drawn.min(by: { ($0.value.deadline!, $0.value.item, $0.key) < ($1.value.deadline!, $1.value.item, $1.key) }),
                  call.deadline! <= limit else { return nil }
            s.calls[key] = nil
            return call
        }
        guard let due else { return nil }
        clock.advance(to: ManualClock.Instant(offset: due.deadline!))
        if due.fails {
            let state = self.state, signal = self.signal
            let last = Locked(true)
            let failure = SimulatedLoadFailure(item: due.item, attempt: due.attempt) {
                if last.withLock({ $0 }) { state.withLock { $0.finishing -= 1 } }
                signal.bump()
            }
            let retries = due.attempt < retry.maxAttempts && retry.shouldRetry(failure)
            last.withLock { $0 = !retries }
            state.withLock { s in
                if retries { s.backingOff[due.item] = (due.ordinal ?? 0, due.attempt) } else { s.finishing += 1 }
            }
            due.continuation.resume(throwing: failure)
            return (due.id, !retries)
        }
        state.withLock { $0.finishing += 1 }
        due.continuation.resume(returning: valueOf(due.id))
        return (due.id, true)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// A duration of `seconds`, to the nanosecond.
    static func seconds(exactly seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
