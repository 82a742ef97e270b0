import PrefetchKit

/// A clock that moves only when the virtual-time driver moves it.
///
/// The fetcher measures load latencies with it, so the latency estimate the adaptive policy
/// uses is virtual too, and a scripted run repeats exactly.
package final class VirtualClock: Clock, Sendable {
    /// A moment of virtual time: the duration since the run started.
    package struct Instant: InstantProtocol, Hashable, Sendable {
        /// The time since the start.
        package var offset: Duration

        package init(offset: Duration) { self.offset = offset }
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct State: Sendable {
        var now = Instant(offset: .zero)
        var nextSleeper = 0
        var sleepers: [Int: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var cancelled: Set<Int> = []
    }

    private let state = Locked(State())

    package init() {}

    /// The current virtual time.
    package var now: Instant { state.withLock { $0.now } }

    /// Exact.
    package var minimumResolution: Duration { .zero }

    /// The current virtual time in seconds.
    package var seconds: Double { now.offset.seconds }

    /// Suspends until the driver moves the clock to `deadline` (the demo's fetcher never retries,
    /// so nothing sleeps here in practice).
    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { s -> Int in
            s.nextSleeper += 1
            return s.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, due, cancelled }
                let outcome = state.withLock { s -> Outcome in
                    if s.cancelled.remove(id) != nil { return .cancelled }
                    if deadline <= s.now { return .due }
                    s.sleepers[id] = (deadline, continuation)
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                s.cancelled.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `instant` (never back) and wakes the sleepers whose time has come.
    package func advance(to instant: Instant) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            if instant > s.now { s.now = instant }
            let ready = s.sleepers.filter { $0.value.deadline <= s.now }.sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            for (key, _) in ready { s.sleepers[key] = nil }
            return ready.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
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
