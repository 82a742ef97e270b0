/// When a fetcher stops a running prefetch so that more urgent waiting work gets its slot.
///
/// A load keeps its slot until it ends or its last interest leaves, unless pre-emption is on.
/// With it on, a running load is *pre-empted* (stopped, and its id queued again at its current
/// priority, since interest in it remains) when all of these hold:
///
/// - no consumer waits on it: only the prefetch interest holds it (a visible cell's load is
///   never stopped);
/// - it has not been pre-empted before while its id stayed held (a restarted load keeps its slot);
/// - a waiting id *outranks it by the margin*: the waiting id's ``FetchPriority/level`` is higher
///   by at least the level margin (in `FetchPriority.Level.rawValue`: 1 for ``acrossLevels``, 100
///   for ``standard``). (The bench also tries a rule within a level, by ``FetchPriority/order``;
///   it is not offered, since no measurement favoured it.)
///
/// "Outranks by the margin" is asymmetric (for a margin of 0 or more), so a load is never stopped
/// for an id that would in turn be stopped for it. It is also monotone: whatever outranks a load
/// outranks every load ranked lower, and a more urgent id outranks whatever a less urgent one
/// does. That is why an order margin needs a level margin of 1: with a wider level margin, an id
/// one level up would not outrank a load that an id of the load's own level does. See the
/// PrefetchKit article "The interest model".
///
/// ```swift
/// var configuration = FetcherConfiguration()
/// configuration.preemption = .acrossLevels      // a fling's flown-past rows yield to its landing rows
/// ```
public struct FetchPreemption: Sendable, Hashable, CustomStringConvertible {
    /// Whether running loads are ever pre-empted.
    @usableFromInline package var isEnabled: Bool
    /// How much higher a waiting id's level must be than a running load's (in
    /// `FetchPriority.Level.rawValue`) for the running load to be stopped. At least 1; 1 means
    /// any higher level (the built-in levels are 100 apart, `speculative` 50 above `background`).
    package var levelMargin: Int
    /// Within one level, how much lower (more urgent) a waiting id's order must be than a
    /// running load's for the running load to be stopped; infinity: never within a level.
    /// Compared in the unit of ``FetchPriority/order`` (a `PrefetchController` ranks by arrival
    /// time, in seconds). At least 0; finite only with a ``levelMargin`` of 1.
    package var orderMargin: Double

    /// Creates a rule. A ``FetcherConfiguration`` checks its rule when its throwing initialiser
    /// runs, and an ``AsyncFetcher`` when it is created, so a rule set on a configuration's
    /// ``FetcherConfiguration/preemption`` is checked before it is used.
    package init(isEnabled: Bool, levelMargin: Int = 1, orderMargin: Double = .infinity) {
        self.isEnabled = isEnabled
        self.levelMargin = levelMargin
        self.orderMargin = orderMargin
    }

    /// Never pre-empt: a running load keeps its slot whatever happens to its rank.
    public static let never = FetchPreemption(isEnabled: false)
    /// Pre-empt a prefetch-only load whose level fell below a waiting id's level (a row a fling
    /// flew past, ranked `speculative` or `background`, while the rows it lands on wait at `prefetch`).
    public static let acrossLevels = FetchPreemption(isEnabled: true)
    /// The default: pre-empt across levels at least 100 apart, two built-in levels. A
    /// `background` load (its row gone before a load could finish) yields to `prefetch` and
    /// `visible` work; `speculative` and `prefetch` loads yield only to `visible` work. Measured
    /// on the bench against ``acrossLevels`` (any higher level), which stopped `speculative` loads
    /// near the viewport for `prefetch` ones and lost readiness on long flings.
    public static let standard = FetchPreemption(isEnabled: true, levelMargin: 100)
    /// Pre-empt across levels at least `levelMargin` apart (at least 1; 1 means any higher level:
    /// the built-in levels are 100 apart, `speculative` 50 above `background`).
    static func acrossLevels(margin levelMargin: Int) -> FetchPreemption {
        FetchPreemption(isEnabled: true, levelMargin: levelMargin)
    }
    /// Pre-empt across levels, and within a level when the waiting id's order is lower by more
    /// than `orderMargin` (at least 0, in the unit of ``FetchPriority/order``: a
    /// `PrefetchController` ranks by arrival time, in seconds).
    static func withinLevels(orderMargin: Double) -> FetchPreemption {
        FetchPreemption(isEnabled: true, orderMargin: orderMargin)
    }

    /// Whether `waiting` outranks `running` by the margin (the rule above, ignoring interests).
    @usableFromInline package func outranks(_ waiting: FetchPriority, _ running: FetchPriority) -> Bool {
        guard isEnabled else { return false }
        if waiting.level != running.level { return waiting.level.rawValue - running.level.rawValue >= levelMargin }
        return waiting.order < running.order - orderMargin
    }

    /// Throws when `levelMargin` is below 1, `orderMargin` is negative or not a number, or
    /// both margins are set (a finite `orderMargin` with a `levelMargin` above 1).
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration``.
    package func validate() throws {
        guard levelMargin >= 1 else {
            throw PrefetchError(.invalidConfiguration, "FetcherConfiguration preemption.levelMargin must be at least 1, got \(levelMargin)")
        }
        guard orderMargin >= 0 else {
            throw PrefetchError(.invalidConfiguration, "FetcherConfiguration preemption.orderMargin must be 0 or more (infinity: levels only), got \(orderMargin)")
        }
        guard orderMargin == .infinity || levelMargin == 1 else {
            throw PrefetchError(.invalidConfiguration, "FetcherConfiguration preemption: an orderMargin (\(orderMargin)) needs a levelMargin of 1, got \(levelMargin)")
        }
    }

    /// `never`, or the margins, such as `preempt(levels ≥ 1, order > inf)`.
    public var description: String {
        guard isEnabled else { return "never" }
        return "preempt(levels ≥ \(levelMargin), order > \(orderMargin))"
    }
}
