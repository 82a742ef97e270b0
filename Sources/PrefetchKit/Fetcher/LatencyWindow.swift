/// The most recent load latencies, and the percentile a prefetch policy plans with.
///
/// A ring of the last ``capacity`` samples: recording is O(1) and never allocates once the ring
/// is full. ``AsyncFetcher`` keeps one for its ``AsyncFetcher/expectedLatency`` and
/// ``FetchStatistics/latency``; the rule for percentiles lives here only, so every reader of
/// "the latency to plan with" gets the same number from the same samples.
///
/// A load cancelled before it finished says its latency was *at least* the time it ran
/// (``recordCancelled(after:)``). Leaving such loads out would bias every percentile low: the
/// slow loads are the ones still running when their cells leave, so a busy fetcher would keep
/// believing its loads are quick. Percentiles are therefore read with the product-limit
/// (Kaplan–Meier) estimator, which counts a cancelled load as surviving up to the time it ran;
/// without cancelled loads it is the plain nearest-rank percentile.
///
/// ```swift
/// var window = try LatencyWindow(capacity: 64)
/// for ms in [150, 200, 300, 400, 500] { window.record(.milliseconds(ms)) }
/// window.expected              // 500 ms: the 90th percentile, once there are 5 samples
/// window.percentile(0.5)       // 300 ms
/// ```
@usableFromInline struct LatencyWindow: Sendable, Equatable {
    /// The most samples kept; older ones are forgotten first.
    @usableFromInline let capacity: Int
    @usableFromInline private(set) var ring: [Duration] = []
    /// Parallel to `ring`: whether the sample is a cancelled load's running time (a lower bound).
    @usableFromInline private(set) var cancelled: [Bool] = []
    @usableFromInline private(set) var cursor = 0
    /// ``expected``, ``typical`` and ``summary`` as worked out from the samples kept now, or `nil`
    /// when a sample came since. The planner reads the first two on every frame, and apps and
    /// the lab read the fetcher's statistics as often, while loads end less often or in bursts:
    /// each is worked out at the first read after a change, not at every read nor every record.
    private var derived: Derived?

    /// What the samples say, worked out at once (one sort each).
    private struct Derived: Sendable {
        var expected: Duration?
        var typical: Duration?
        var summary: LatencySummary
    }

    /// Creates an empty window that keeps the last `capacity` samples.
    ///
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidArgument`` when
    ///   `capacity` is less than 1.
    init(capacity: Int = 64) throws {
        guard capacity >= 1 else {
            throw PrefetchError(.invalidArgument, "LatencyWindow capacity must be at least 1, got \(capacity)")
        }
        self.capacity = capacity
    }

    /// The number of samples kept now (at most ``capacity``).
    var count: Int { ring.count }

    /// Whether no sample was recorded since creation or ``removeAll()``.
    var isEmpty: Bool { ring.isEmpty }

    /// The samples kept, oldest first (cancelled loads' running times included).
    /// - Complexity: O(``capacity``)
    var samples: [Duration] {
        Array(ring[cursor...] + ring[..<cursor])
    }

    /// The number of samples that are cancelled loads' running times.
    var cancelledCount: Int { cancelled.lazy.filter { $0 }.count }

    /// Records one latency, forgetting the oldest sample when the window is full.
    ///
    /// A negative duration (a clock that went backwards) is recorded as zero.
    /// - Complexity: O(1) amortized; O(1) without allocating once the window is full.
    @usableFromInline mutating func record(_ latency: Duration) {
        append(max(latency, .zero), cancelled: false)
    }

    /// Records a load that was cancelled after running for `elapsed`: its latency would have been
    /// at least that. Forgets the oldest sample when the window is full.
    ///
    /// A negative duration is recorded as zero.
    /// - Complexity: O(1) amortized; O(1) without allocating once the window is full.
    mutating func recordCancelled(after elapsed: Duration) {
        append(max(elapsed, .zero), cancelled: true)
    }

    mutating func append(_ sample: Duration, cancelled isCancelled: Bool) {
        if ring.count < capacity {
            ring.append(sample)
            cancelled.append(isCancelled)
        } else {
            ring[cursor] = sample
            cancelled[cursor] = isCancelled
            cursor = cursor + 1 == capacity ? 0 : cursor + 1
        }
        derived = nil
    }

    /// ``expected``, ``typical`` and ``summary`` of the samples kept now, worked out if a sample
    /// came since they last were.
    private mutating func derive() -> Derived {
        if let derived { return derived }
        let enough = ring.count >= LatencySummary.minimumSamplesForEstimate
        let (ring, cancelled) = (ring, cancelled)
        let fresh = Derived(expected: enough ? percentile(0.9) : nil, typical: enough ? percentile(0.5) : nil,
                            summary: LatencySummary(samples: ring.indices.filter { !cancelled[$0] }.map { ring[$0] }))
        derived = fresh
        return fresh
    }

    /// Forgets every sample.
    mutating func removeAll() {
        ring.removeAll(keepingCapacity: true)
        cancelled.removeAll(keepingCapacity: true)
        cursor = 0
        derived = nil
    }

    /// The `fraction` quantile of the latencies (`0.9` for the 90th percentile), or `nil` without
    /// samples. `fraction` is clamped to `0...1`.
    ///
    /// Without cancelled loads it is the nearest-rank percentile of the samples. With them it is
    /// the product-limit estimate: the first latency at which the estimated share of loads done
    /// reaches `fraction`, where a cancelled load counts as not done up to its running time. When
    /// so many long loads were cancelled that the estimate never reaches `fraction`, it is the
    /// longest time any sample ran: the latency is at least that.
    /// - Complexity: O(n log n) for n samples.
    func percentile(_ fraction: Double) -> Duration? {
        guard !ring.isEmpty else { return nil }
        guard cancelled.contains(true) else { return Self.nearestRank(ring.sorted(), fraction) }
        let clamped = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        // Finished loads before cancelled ones of the same time: a cancelled load was still running then.
        let order = ring.indices.sorted { ring[$0] != ring[$1] ? ring[$0] < ring[$1] : (!cancelled[$0] && cancelled[$1]) }
        var surviving = 1.0
        var atRisk = Double(ring.count)
        for index in order {
            if !cancelled[index] {
                surviving *= 1 - 1 / atRisk
                if 1 - surviving >= clamped - 1e-9 { return ring[index] }
            }
            atRisk -= 1
        }
        return ring[order[order.count - 1]]
    }

    /// A latency to plan prefetching with: the 90th percentile, once there are at least
    /// ``LatencySummary/minimumSamplesForEstimate`` samples (one early load says little about
    /// the next ones); `nil` before that.
    /// - Complexity: O(n log n) for n samples at the first read after a change, O(1) after that.
    var expected: Duration? { mutating get { derive().expected } }

    /// A typical latency: the median (``percentile(_:)`` of 0.5), once there are at least
    /// ``LatencySummary/minimumSamplesForEstimate`` samples; `nil` before that.
    /// - Complexity: O(n log n) for n samples at the first read after a change, O(1) after that.
    var typical: Duration? { mutating get { derive().typical } }

    /// Count, mean, median, 90th percentile and maximum of the finished loads' latencies
    /// (cancelled loads' running times left out).
    /// - Complexity: O(n log n) for n samples at the first read after a change, O(1) after that.
    var summary: LatencySummary { mutating get { derive().summary } }

    /// Two windows are equal when they have the same capacity and the same samples, each marked
    /// finished or cancelled alike, in the same order.
    @usableFromInline static func == (lhs: LatencyWindow, rhs: LatencyWindow) -> Bool {
        lhs.capacity == rhs.capacity && lhs.samples == rhs.samples && lhs.orderedCancelled == rhs.orderedCancelled
    }

    private var orderedCancelled: [Bool] { Array(cancelled[cursor...] + cancelled[..<cursor]) }

    /// The nearest-rank `fraction` quantile of non-empty sorted samples: the one rule for percentiles.
    static func nearestRank(_ sorted: [Duration], _ fraction: Double) -> Duration {
        let clamped = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        let rank = Int((Double(sorted.count) * clamped).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
