/// What a surface's loads measured, as a planner takes it once per frame: the median and the
/// high percentile (a target's ``PrefetchTarget/typicalLatency`` and
/// ``PrefetchTarget/expectedLatency``), each `nil` until measured.
///
/// `@usableFromInline` for the planner's inlined frame, and because public default arguments read
/// `standardFallback` (a default argument is compiled into the caller).
@usableFromInline
package struct LatencyEstimate: Sendable, Hashable {
    /// How long a typical load takes (a median).
    @usableFromInline package var typical: Duration?
    /// A load started now is ready this much later nine times in ten (a high percentile).
    @usableFromInline package var expected: Duration?

    @inlinable
    package init(typical: Duration? = nil, expected: Duration? = nil) {
        self.typical = typical
        self.expected = expected
    }

    /// The latency assumed until measured, unless configured otherwise: 300 ms. `@usableFromInline`:
    /// the default argument of `PrefetchController.Configuration.init` and `ScrollContext.init`.
    @usableFromInline static let standardFallback = Duration.milliseconds(300)
}

/// The two latencies a planner ranks and plans with: `L` (typical) and `E` (expected). The
/// policy sees the same `E` (``ScrollContext/expectedLatency``) as the ranking.
///
/// The one place the fallback stands in for what is not measured yet. A latency follows the
/// estimate only when it moves by more than a quarter, so that a new sample does not make every
/// held rank stale (nor move the policy's window with every sample).
@usableFromInline
struct PlanningLatency {
    /// `L`: how long a load holds its slot (the median).
    @usableFromInline private(set) var typical: Duration
    /// `E`: a load started now is ready by `now + E` nine times in ten.
    @usableFromInline private(set) var expected: Duration
    /// `L` and `E` in seconds, for the ranking.
    @usableFromInline private(set) var typicalSeconds: Double
    @usableFromInline private(set) var expectedSeconds: Double

    init(fallback: Duration) {
        let fallback = Self.capped(fallback)
        (typical, expected) = (fallback.duration, fallback.duration)
        (typicalSeconds, expectedSeconds) = (fallback.seconds, fallback.seconds)
    }

    /// Takes one frame's estimate; returns whether a latency moved (the held ranks are stale).
    ///
    /// Unmeasured or unusable (negative), `L` is `fallback` and `E` is the larger of `L` and
    /// `fallback`. A latency past ``longest`` (from a target, or the fallback) counts as ``longest``.
    @inlinable
    mutating func take(_ estimate: LatencyEstimate, fallback: Duration) -> Bool {
        var moved = false
        let fallback = Self.capped(fallback)
        let measured = Self.usable(estimate.typical) ?? fallback
        if abs(measured.seconds - typicalSeconds) > 0.25 * typicalSeconds {
            (typical, typicalSeconds) = measured
            moved = true
        }
        let high = Self.usable(estimate.expected) ?? (typical >= fallback.duration ? (typical, typicalSeconds) : fallback)
        if abs(high.seconds - expectedSeconds) > 0.25 * expectedSeconds {
            (expected, expectedSeconds) = high
            moved = true
        }
        return moved
    }

    /// The longest latency a planner works with: 10¹⁸ seconds (`ThroughputWindow.longestEstimate`,
    /// the longest a fetcher's target answers for an item's size). Any `Duration` a target
    /// reports converts to seconds: `Duration.components` traps past `Int64.max` seconds.
    @usableFromInline static let longest = Duration.seconds(ThroughputWindow.longestEstimate)

    /// `latency` (at most ``longest``) and its seconds, or `nil` when it is unmeasured or negative.
    @inlinable
    static func usable(_ latency: Duration?) -> (duration: Duration, seconds: Double)? {
        guard let latency, latency >= .zero else { return nil }
        return capped(latency)
    }

    /// `latency`, at most ``longest``, and its seconds.
    @inlinable
    static func capped(_ latency: Duration) -> (duration: Duration, seconds: Double) {
        let latency = Swift.min(latency, longest)
        return (latency, latency.seconds)
    }
}
