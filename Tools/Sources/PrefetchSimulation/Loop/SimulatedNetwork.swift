import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// A network on virtual time: the loader of an ``AsyncFetcher`` in the simulator and in the
/// demo's scripted runs.
///
/// A load that reaches ``load(_:)`` waits until the driver calls ``completeNext(upTo:)`` at or
/// after its end on the ``NetworkTimeline`` (and reports the bytes it moved, as a real loader
/// does, with `FetchLoadContext.recordTransferred(bytes:)`) (independent latencies, or a round trip and a
/// transfer on a shared link); cancelling its task ends it at once with `CancellationError`. Each
/// attempt's latency and outcome come from the ``LatencyModel``, keyed by the seed, the item,
/// the load's ordinal (how many loads of the item the fetcher started before) and the attempt,
/// so a run repeats exactly whatever the threads do. A failed attempt throws a
/// `SimulatedLoadFailure`; the fetcher's `RetryPolicy` waits on the `ManualClock` and calls
/// again, and the next call is that load's next attempt.
///
/// The network learns when loads start and are cancelled from the fetcher's events: pass
/// every event to ``record(_:)`` (`VirtualTimeLoop` does).
///
/// With previews (``PreviewSource``) it is a `PreviewLoader`: a preview load moves the preview's
/// bytes (a prefix, kept for the full load, or a variant of its own), and a full load of an item
/// with a prefix preview hands the fetcher the preview when its bytes pass the prefix.
final class SimulatedNetwork<ID: Hashable & Sendable, Value: Sendable>: PreviewLoader, Sendable {
    struct Call: Sendable {
        var id: ID
        var item: Int
        var attempt: Int
        var ordinal: Int?
        var start: Duration
        /// Whether the attempt's latency is drawn and it is on the network's timeline.
        var isDrawn = false
        /// The load's urgency (``FetchPriority/urgency``) when it was last read.
        var urgency = 3
        /// Reads the load's priority now (``FetchLoadContext/livePriority``).
        var priorityNow: (@Sendable () -> FetchPriority?)?
        /// Resumed with the value, the bytes the attempt moved, and whether a preview call went
        /// on to the full value.
        var continuation: CheckedContinuation<(Value, Int, Bool), any Error>
        /// Reads the quality the load's interests want now (`FetchLoadContext.liveQuality`).
        var qualityNow: (@Sendable () -> FetchQuality?)?
        /// A preview call whose load was wanted in full by the time it was drawn: it moves the
        /// whole payload and says so (`FetchLoadContext.recordFullQuality()`).
        var upgraded = false
        /// The quality the load asked for.
        var quality: FetchQuality = .full
        /// Hands the fetcher a preview on the way (a full load of an item with a prefix preview).
        var preview: (@Sendable (Value) -> Void)?
    }

    struct State: Sendable {
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
        /// Preview calls that ended with a value whose load the fetcher may go on with at full
        /// quality (an upgrade), by item: the load's ordinal.
        var previewEnded: [Int: Int] = [:]
        var latency: LatencyModel
        /// When each drawn attempt ends.
        var timeline: NetworkTimeline
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

    let state: Locked<State>
    /// Seeds every draw.
    let seed: UInt64
    /// The payload size of each item.
    let sizes: PayloadSizes
    /// Where previews come from (none by default).
    let previews: PreviewSource
    let retry: RetryPolicy
    let clock: ManualClock
    private let signal: ChangeSignal
    private let itemOf: @Sendable (ID) -> Int
    private let valueOf: @Sendable (ID) -> Value

    /// Creates a network.
    ///
    /// - Parameters:
    ///   - model: independent latencies, or one shared link.
    ///   - sizes: each item's payload: under the independent model it feeds a bandwidth-bound
    ///     latency model; on a shared link it is what the link moves.
    ///   - retry: the fetcher's retry policy, to know whether a failed attempt is the load's last.
    ///   - item: the item index of an id: draws are keyed by it.
    ///   - value: the value a successful load returns.
    package init(
        latency: LatencyModel, model: NetworkModel = .independent, seed: UInt64, sizes: PayloadSizes = .fixed(0),
        previews: PreviewSource = .none, retry: RetryPolicy,
        clock: ManualClock, signal: ChangeSignal, item: @escaping @Sendable (ID) -> Int, value: @escaping @Sendable (ID) -> Value
    ) {
        self.state = Locked(State(latency: latency, timeline: NetworkTimeline(model: model, seed: seed)))
        self.seed = seed
        self.sizes = sizes
        self.previews = previews
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
        try await load(id, quality: .full, preview: nil)
    }

    /// Loads `id` at `quality`: a preview load moves the preview's bytes; a full load of an item
    /// with a prefix preview calls `preview` when its bytes pass the prefix. Without previews
    /// every load is a full one.
    func load(_ id: ID, quality: FetchQuality, preview: @escaping @Sendable (Value) -> Void) async throws -> Value {
        try await load(id, quality: quality, preview: Optional(preview))
    }

    private func load(_ id: ID, quality: FetchQuality, preview: (@Sendable (Value) -> Void)?) async throws -> Value {
        let item = itemOf(id)
        let urgency = FetchLoadContext.priority?.urgency ?? 3, priorityNow = FetchLoadContext.livePriority
        let qualityNow = FetchLoadContext.liveQuality
        let key = state.withLock { s -> Int in
            s.nextKey += 1
            return s.nextKey
        }
        let (value, moved, upgraded) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Value, Int, Bool), any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    // Checked under the lock the cancel handler takes, so a cancel is never missed.
                    if Task.isCancelled { return true }
                    var call = Call(id: id, item: item, attempt: 1, start: clock.now.offset, urgency: urgency, priorityNow: priorityNow,
                                    continuation: continuation, qualityNow: qualityNow, quality: previews.isEnabled ? quality : .full,
                                    preview: preview)
                    if let retrying = s.backingOff.removeValue(forKey: item) {
                        call.attempt = retrying.attempt + 1
                        call.ordinal = retrying.ordinal
                        s.inTransit -= 1
                    } else {
                        call.ordinal = s.ordinalWaitingForCall.removeValue(forKey: item)
                    }
                    s.calls[key] = call
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                signal.bump()
            }
        } onCancel: {
            let call = state.withLock { s in
                s.timeline.stop(key: key, at: clock.now.offset)
                return s.calls.removeValue(forKey: key)
            }
            call?.continuation.resume(throwing: CancellationError())
            signal.bump()
        }
        // What a real loader reports of its body: the bytes this attempt moved (a resumed
        // transfer, only the rest).
        FetchLoadContext.recordTransferred(bytes: moved)
        if upgraded { FetchLoadContext.recordFullQuality() }
        return value
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
                } else {
                    s.ordinalWaitingForCall[item] = ordinal
                }
            }
        case .loadCompleted(let id, _):
            let item = itemOf(id)
            state.withLock { s in
                s.previewEnded[item] = nil
                s.finishing -= 1
                s.running -= 1
            }
        case .previewLoaded(let id):
            // A preview call ended and the fetcher goes on with the same load at full quality: the
            // call is finished with, and the load's next call keeps its ordinal.
            let item = itemOf(id)
            state.withLock { s in
                guard let ordinal = s.previewEnded.removeValue(forKey: item) else { return }
                s.finishing -= 1
                if let key = s.calls.first(where: { $0.value.item == item && $0.value.ordinal == nil })?.key {
                    s.calls[key]?.ordinal = ordinal
                } else {
                    s.ordinalWaitingForCall[item] = ordinal
                }
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

    /// The payload size of `item`, in bytes.
    func bytes(of item: Int) -> Int { sizes.bytes(item: item, seed: seed) }

    /// Takes the network's next event at or before `limit` (ties by item), after moving the
    /// clock to it, or returns nil when none is due. The event is an attempt ending (its id, and
    /// whether its load ended: with a value or its last failure; `false` when the fetcher will
    /// retry, or for a preview, after which the load may go on), a full load's bytes passing
    /// its preview's prefix (its id, `false`), or, on a shared link, a round trip ending and its
    /// transfer beginning (id nil: nothing for the fetcher).
    package func completeNext(upTo limit: Duration) -> (id: ID?, loadEnded: Bool)? {
        upgradeArrived()
        let taken = state.withLock { s -> (time: Duration, call: Call?, attempt: NetworkTimeline.Attempt?, preview: Call?)? in
            drawArrived(&s)
            guard let next = s.timeline.nextEvent(), next.time <= limit else { return nil }
            guard let attempt = s.timeline.take(next.event, at: next.time) else { return (next.time, nil, nil, nil) }
            if case .previewReady(let key) = next.event { return (next.time, nil, nil, s.calls[key]) }
            guard case .ends(let key) = next.event, let call = s.calls.removeValue(forKey: key) else { return (next.time, nil, nil, nil) }
            return (next.time, call, attempt, nil)
        }
        guard let taken else { return nil }
        clock.advance(to: ManualClock.Instant(offset: taken.time))
        if let previewing = taken.preview {
            // The full load's bytes passed the prefix: the fetcher has a preview, and the load goes on.
            previewing.preview?(valueOf(previewing.id))
            signal.bump()
            return (previewing.id, false)
        }
        guard let due = taken.call, let attempt = taken.attempt else { return (nil, false) }
        if attempt.fails {
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
        state.withLock { s in
            s.finishing += 1
            if due.quality == .preview { s.previewEnded[due.item] = due.ordinal ?? 0 }
        }
        due.continuation.resume(returning: (valueOf(due.id), max(attempt.bytes - Int(attempt.carried.rounded()), 0), due.upgraded))
        // A preview call may not end its load: the fetcher goes on at full quality when a consumer
        // wants the full value, and that consumer hears later.
        return (due.id, due.quality == .full)
    }
}
