/// How a planner ranks items on one frame: the forecast, the time, the two latencies and the
/// tolerance the held priorities are compared with.
///
/// Built once per frame and not nested in the generic planner, so that ranking an item reads
/// nothing else and needs no generic metadata.
@usableFromInline
struct Ranking {
    let forecast: MotionForecast
    /// Now, in seconds.
    let now: Double
    /// `L`: the typical (median) latency, in seconds.
    let latency: Double
    /// `E`: the expected (high-percentile) latency, in seconds.
    let expected: Double
    /// How far, in seconds, an order must move to be worth re-sending.
    @usableFromInline let tolerance: Double

    @usableFromInline
    init(forecast: MotionForecast, now: Double, latency: PlanningLatency, tolerance: Double) {
        self.forecast = forecast
        self.now = now
        self.latency = latency.typicalSeconds
        self.expected = latency.expectedSeconds
        self.tolerance = tolerance
    }

    /// The priority of an item with `extent` under `forecast` at `now` (the rule and its reasons:
    /// the PrefetchKit article "Scheduling by time to display").
    ///
    /// Loaded from now, the item would show its data for `shown = departure − max(arrival, now + W)`,
    /// where the wait `W` is `E` while the forecast guesses (a drag, rest) and `L` along a fling's
    /// deceleration, whose path is known; a load is worth its slot when `shown ≥ L`. Worth a
    /// slot: `visible` on screen, else `prefetch`, both by arrival. Not worth one but shown after a typical load started now could
    /// finish (`departure > now + L`): `speculative`, latest departure first (departures do not
    /// move while the forecast holds). Gone before: `background`, by arrival. Never reached by the
    /// motion: `speculative`, after every arrival, nearest first. A rank worth a slot holds until
    /// ``Rank/until``, `departure − W − L`; the others as long as the forecast.
    ///
    /// An item whose load takes longer or shorter than the typical one (`typical`, its own
    /// typical latency in seconds, when the target knows its size) ranks with `L` and `E` moved
    /// by the difference: a large photo that a motion shows for a moment is not worth a slot
    /// its load could not use in time, where a small one is; a rank it earns holds until its own
    /// load could no longer finish. The order stays the arrival: ordering by slack (arrival less
    /// the load's time, large items first) left more cells blank when the link is saturated
    /// (Benchmarks/NOTES.md, "Sizes and the transfer rate").
    @usableFromInline
    func rank(of extent: Range<Double>, typical: Double? = nil) -> Rank {
        let extra = typical.map { $0 - self.latency } ?? 0
        let latency = Swift.max(self.latency + extra, 0), expected = Swift.max(self.expected + extra, latency)
        let (arrival, departure) = forecast.window(of: extent)
        guard arrival.isFinite else {
            return Rank(priority: FetchPriority(level: .speculative, order: Self.unreachedOrder + forecast.distance(to: extent) / forecast.length))
        }
        // An animated scroll's destination is what the user asked to see: it ranks as on screen
        // from the animation's first frame, not as something the viewport reaches later.
        let onScreen = (arrival <= now && forecast.shows(extent, at: now))
            || (forecast.isAnimatedScroll && forecast.shows(extent, at: .infinity))
        // The wait for a load started now: `E` while the forecast is a guess (a drag's speed
        // held, a view at rest), `L` along a fling's deceleration, whose path is fixed.
        let wait = forecast.isFling ? latency : expected
        let worthASlot = departure - Swift.max(onScreen ? now : arrival, now + wait) >= latency
        if worthASlot {
            return Rank(priority: FetchPriority(level: onScreen ? .visible : .prefetch, order: arrival),
                        until: departure - wait - latency)
        }
        guard departure > now + latency else { return Rank(priority: FetchPriority(level: .background, order: arrival)) }
        return Rank(priority: FetchPriority(level: .speculative, order: -departure))
    }

    /// Whether a held request should move from `old` to `new`: a change of level, or (below the
    /// visible level, where the order among items on screen matters little) an order that moved
    /// by more than the tolerance.
    @inlinable
    func isMeaningful(from old: FetchPriority, to new: FetchPriority) -> Bool {
        if old.level != new.level { return true }
        if new.level == .visible { return false }
        return abs(old.order - new.order) > tolerance
    }

    /// Orders of items the forecast never reaches start here: after any arrival time (seconds).
    @usableFromInline static var unreachedOrder: Double { 1e9 }
}

/// An item's priority under one frame's ``Ranking``, and the time until which it holds.
@usableFromInline
struct Rank {
    @usableFromInline var priority: FetchPriority
    /// The time (seconds) after which the priority no longer holds as time passes, though the
    /// forecast does; infinity when it holds for as long as the forecast.
    @usableFromInline var until: Double

    @inlinable
    init(priority: FetchPriority, until: Double = .infinity) {
        self.priority = priority
        self.until = until
    }
}

extension FetchPriority.Level {
    /// Items a forecast shows on screen only for a moment (a fly-past: on screen for less than a
    /// typical load) or not at all (behind, or past where the motion stops): worth loading only
    /// with slots to spare. Between ``background`` and ``prefetch``.
    public static let speculative = FetchPriority.Level(rawValue: 50)
}

