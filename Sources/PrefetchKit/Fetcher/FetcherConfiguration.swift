/// The settings of an ``AsyncFetcher``, checked when the fetcher is created.
///
/// ```swift
/// var configuration = FetcherConfiguration()
/// configuration.maxConcurrentLoads = 4          // the tutorial's download cap
/// configuration.retry = .standard
/// let fetcher = try AsyncFetcher(configuration: configuration) { id in try await load(id) }
/// ```
public struct FetcherConfiguration: Sendable {
    /// The most loads that run at once (default 6), besides loads of previews in ``previewSlots``. At least 1.
    public var maxConcurrentLoads: Int = 6
    /// Slots beyond ``maxConcurrentLoads`` that only loads of previews take (default 6). At least 0.
    ///
    /// A load whose every interest asked for ``FetchQuality/preview`` brings a fraction of the
    /// full value's bytes; so do the first bytes of a full value whose loader reports a preview
    /// on the way (a progressive prefix; see ``PreviewLoader``). On a slow link, these loads in
    /// slots of their own share the link with the rest: cells that would stay blank while full
    /// values come a few at a time show something sooner, while at most ``maxConcurrentLoads``
    /// loads complete full values at once. A load of a full value that gets its preview while
    /// more than that many complete theirs waits again and resumes after the bytes it has. A
    /// fetcher whose loader is not a ``PreviewLoader`` never uses these slots.
    public var previewSlots: Int = 6
    /// The most values the memory cache keeps (default 1,000). At least 1.
    public var cacheCountLimit: Int = 1_000
    /// The most total cost the memory cache keeps, in the cost function's unit (default: no limit). At least 0.
    public var cacheCostLimit: Int = .max
    /// The most memory the cache and the loads in flight hold together, in the cost function's unit
    /// (default: no limit). At least 0.
    ///
    /// A load in flight counts as a typical value (the mean cost of the values seen so far): when
    /// a load starts or a value arrives, the least recently used values leave the cache until the
    /// cache and the loads in flight fit. Loads are never held back for it (a visible item's load
    /// must run); a ``PrefetchController`` whose target is this fetcher requests no more
    /// prefetches than fit (see ``PrefetchTarget/prefetchCapacity``). See
    /// ``FetchStatistics/memoryHeld``.
    public var memoryBudget: Int = .max
    /// When failed loads are tried again (default: never).
    public var retry: RetryPolicy = .none
    /// How many recent load latencies the statistics keep (default 64). At least 1.
    public var latencySamples: Int = 64
    /// Seeds the random jitter of retries: fixed, so a run can be repeated.
    package var randomSeed: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// Whether a running prefetch yields its slot to more urgent waiting work (default
    /// ``FetchPreemption/standard``; ``FetchPreemption/never`` keeps every load to its end); see ``FetchPreemption``.
    public var preemption: FetchPreemption = .standard

    /// Creates a configuration with the defaults.
    public init() {}

    /// Creates a configuration, checking every value.
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidConfiguration`` naming the bad value.
    public init(
        maxConcurrentLoads: Int = 6,
        cacheCountLimit: Int = 1_000,
        cacheCostLimit: Int = .max,
        retry: RetryPolicy = .none,
        latencySamples: Int = 64,
        preemption: FetchPreemption = .standard,
        memoryBudget: Int = .max,
        previewSlots: Int = 6
    ) throws {
        self.maxConcurrentLoads = maxConcurrentLoads
        self.cacheCountLimit = cacheCountLimit
        self.cacheCostLimit = cacheCostLimit
        self.retry = retry
        self.latencySamples = latencySamples
        self.preemption = preemption
        self.memoryBudget = memoryBudget
        self.previewSlots = previewSlots
        try validate()
    }

    /// Throws when a value is out of range, naming it and the rule.
    package func validate() throws {
        func fail(_ message: String) -> PrefetchError { PrefetchError(.invalidConfiguration, "FetcherConfiguration \(message)") }
        guard maxConcurrentLoads >= 1 else { throw fail("maxConcurrentLoads must be at least 1, got \(maxConcurrentLoads)") }
        guard previewSlots >= 0 else { throw fail("previewSlots must be 0 or more, got \(previewSlots)") }
        guard cacheCountLimit >= 1 else { throw fail("cacheCountLimit must be at least 1, got \(cacheCountLimit)") }
        guard cacheCostLimit >= 0 else { throw fail("cacheCostLimit must be 0 or more, got \(cacheCostLimit)") }
        guard memoryBudget >= 0 else { throw fail("memoryBudget must be 0 or more, got \(memoryBudget)") }
        guard latencySamples >= 1 else { throw fail("latencySamples must be at least 1, got \(latencySamples)") }
        try retry.validate()
        try preemption.validate()
    }
}
