import Foundation
import PrefetchKit
import PrefetchSimulation

/// The simulated network's latency: a ``PrefetchSimulation/LatencyModel`` and a seed, changeable
/// while the demo runs (the `+` and `-` keys).
package final class LatencySetting: Sendable {
    private struct State: Sendable {
        var model: LatencyModel
        var ordinals: [Int: Int] = [:]
    }

    private let state: Locked<State>
    /// Seeds every draw.
    package let seed: UInt64

    package init(model: LatencyModel, seed: UInt64) {
        self.state = Locked(State(model: model))
        self.seed = seed
    }

    /// The current model.
    package var model: LatencyModel {
        get { state.withLock { $0.model } }
        set { state.withLock { $0.model = newValue } }
    }

    /// The latency of one load of `item`; `load` tells loads of the same item apart.
    package func draw(item: Int, load: Int) -> Duration {
        let model = self.model
        let draw = model.draw(seed: seed, item: item, load: load, attempt: 1, payloadBytes: 0)
        return .seconds(exactly: draw.latency)
    }

    /// The latency of the next load of `item`, numbering loads per item (for real time).
    package func drawNext(item: Int) -> Duration {
        let ordinal = state.withLock { s -> Int in
            let n = s.ordinals[item, default: 0]
            s.ordinals[item] = n + 1
            return n
        }
        return draw(item: item, load: ordinal)
    }
}

/// The loader of the interactive demo: waits a drawn latency on a real clock, then answers
/// with the item's ``DisplayData``. This is the seeds' "simulated network request".
package struct RealTimeLoader<C: Clock>: DataLoader where C.Duration == Duration {
    let indexes: [UUID: Int]
    let latency: LatencySetting
    let clock: C

    package init(models: [Model], latency: LatencySetting, clock: C) {
        self.indexes = Dictionary(uniqueKeysWithValues: models.map { ($0.identifier, $0.index) })
        self.latency = latency
        self.clock = clock
    }

    package func load(_ id: UUID) async throws -> DisplayData {
        try await clock.sleep(for: latency.drawNext(item: indexes[id] ?? 0))
        return DisplayData(identifier: id)
    }
}

/// The loader of scripted and plain runs: a network on virtual time.
///
/// A load that reaches ``load(_:)`` waits until the driver calls ``completeNext(upTo:)`` at or
/// after its deadline (start + drawn latency); cancelling its task ends it at once with
/// `CancellationError`. The draw depends on the seed, the item and the virtual start time, so
/// a run repeats exactly whatever the threads do.
package final class VirtualNetwork: DataLoader, Sendable {
    private struct Call: Sendable {
        var id: UUID
        var item: Int
        var deadline: Duration
        var continuation: CheckedContinuation<DisplayData, any Error>
    }

    private struct State: Sendable {
        var calls: [Int: Call] = [:]
        var next = 0
    }

    private let state = Locked(State())
    private let indexes: [UUID: Int]
    private let latency: LatencySetting
    private let clock: VirtualClock
    private let signal: ChangeSignal

    package init(models: [Model], latency: LatencySetting, clock: VirtualClock, signal: ChangeSignal) {
        self.indexes = Dictionary(uniqueKeysWithValues: models.map { ($0.identifier, $0.index) })
        self.latency = latency
        self.clock = clock
        self.signal = signal
    }

    /// Loads waiting for their deadline.
    package var waitingCount: Int { state.withLock { $0.calls.count } }

    package func load(_ id: UUID) async throws -> DisplayData {
        let key = state.withLock { s -> Int in
            s.next += 1
            return s.next
        }
        let item = indexes[id] ?? 0
        defer { signal.bump() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DisplayData, any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    // Checked under the lock the cancel handler takes, so a cancel is never missed.
                    if Task.isCancelled { return true }
                    let start = clock.now.offset
                    let micros = Int(start / .microseconds(1))
                    let deadline = start + latency.draw(item: item, load: micros)
                    s.calls[key] = Call(id: id, item: item, deadline: deadline, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                signal.bump()
            }
        } onCancel: {
            let call = state.withLock { $0.calls.removeValue(forKey: key) }
            call?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The earliest deadline of a waiting load.
    package var nextDeadline: Duration? {
        state.withLock { $0.calls.values.map(\.deadline).min() }
    }

    /// Completes the waiting load with the earliest deadline at or before `limit` (ties by item),
    /// after moving the clock to that deadline. Returns its id, or nil when none is due.
    package func completeNext(upTo limit: Duration) -> UUID? {
        let due = state.withLock { s -> Call? in
            guard let (key, call) = s.calls.min(by: { ($0.value.deadline, $0.value.item) < ($1.value.deadline, $1.value.item) }),
                  call.deadline <= limit else { return nil }
            s.calls[key] = nil
            return call
        }
        guard let due else { return nil }
        clock.advance(to: VirtualClock.Instant(offset: due.deadline))
        due.continuation.resume(returning: DisplayData(identifier: due.id))
        return due.id
    }
}
