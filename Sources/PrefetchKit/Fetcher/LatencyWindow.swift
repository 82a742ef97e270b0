/// The most recent load latencies, and the percentile a prefetch policy plans with.
///
/// A ring of the last ``capacity`` samples: recording is O(1) and never allocates once the ring
/// is full. ``AsyncFetcher`` keeps one for its ``AsyncFetcher/expectedLatency`` and
/// ``FetchStatistics/latency``; the rule for percentiles (nearest rank) lives here only, so
/// every reader of "the latency to plan with" gets the same number from the same samples.
///
/// ```swift
/// var window = try LatencyWindow(capacity: 64)
/// for ms in [150, 200, 300, 400, 500] { window.record(.milliseconds(ms)) }
/// window.expected              // 500 ms: the 90th percentile, once there are 5 samples
/// window.percentile(0.5)       // 300 ms
/// ```
public struct LatencyWindow: Sendable, Equatable {
    /// The most samples kept; older ones are forgotten first.
    public let capacity: Int
    @usableFromInline var ring: [Duration] = []
    @usableFromInline var cursor = 0

    /// Creates an empty window that keeps the last `capacity` samples.
    ///
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidArgument`` when
    ///   `capacity` is less than 1.
    public init(capacity: Int = 64) throws {
        guard capacity >= 1 else {
            throw PrefetchError(.invalidArgument, "LatencyWindow capacity must be at least 1, got \(capacity)")
        }
        self.capacity = capacity
    }

    /// The number of samples kept now (at most ``capacity``).
    public var count: Int { ring.count }

    /// Whether no sample was recorded since creation or ``removeAll()``.
    public var isEmpty: Bool { ring.isEmpty }

    /// The samples kept, oldest first.
    /// - Complexity: O(``capacity``)
    public var samples: [Duration] {
        Array(ring[cursor...] + ring[..<cursor])
    }

    /// Records one latency, forgetting the oldest sample when the window is full.
    ///
    /// A negative duration (a clock that went backwards) is recorded as zero.
    /// - Complexity: O(1) amortized; O(1) without allocating once the window is full.
    @inlinable
    public mutating func record(_ latency: Duration) {
        let sample = max(latency, .zero)
        if ring.count < capacity {
            ring.append(sample)
        } else {
            ring[cursor] = sample
            cursor = cursor + 1 == capacity ? 0 : cursor + 1
        }
    }

    /// Forgets every sample.
    public mutating func removeAll() {
        ring.removeAll(keepingCapacity: true)
        cursor = 0
    }

    /// The `fraction` quantile of the samples by nearest rank (`0.9` for the 90th percentile),
    /// or `nil` without samples. `fraction` is clamped to `0...1`.
    /// - Complexity: O(n log n) for n samples.
    public func percentile(_ fraction: Double) -> Duration? {
        ring.isEmpty ? nil : Self.nearestRank(ring.sorted(), fraction)
    }

    /// A latency to plan prefetching with: the 90th percentile, once there are at least
    /// ``LatencySummary/minimumSamplesForEstimate`` samples (one early load says little about
    /// the next ones); `nil` before that.
    /// - Complexity: O(n log n) for n samples.
    public var expected: Duration? {
        ring.count >= LatencySummary.minimumSamplesForEstimate ? percentile(0.9) : nil
    }

    /// Count, mean, median, 90th percentile and maximum of the samples.
    /// - Complexity: O(n log n) for n samples.
    public var summary: LatencySummary { LatencySummary(samples: ring) }

    /// Two windows are equal when they have the same capacity and the same samples in the same order.
    public static func == (lhs: LatencyWindow, rhs: LatencyWindow) -> Bool {
        lhs.capacity == rhs.capacity && lhs.samples == rhs.samples
    }

    /// The nearest-rank `fraction` quantile of non-empty sorted samples: the one rule for percentiles.
    static func nearestRank(_ sorted: [Duration], _ fraction: Double) -> Duration {
        let clamped = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        let rank = Int((Double(sorted.count) * clamped).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
