/// Counters and recent latencies of an ``AsyncFetcher``, read with ``AsyncFetcher/statistics``.
public struct FetchStatistics: Sendable, Hashable {
    /// Calls that asked for a value or a prefetch (per id).
    public var requests = 0
    /// Requests that joined a load already waiting or running for the same id.
    public var coalescedRequests = 0
    /// Requests answered from the memory cache.
    public var cacheHits = 0
    /// Loads answered by the ``DataStore`` instead of the loader.
    public var storeHits = 0
    /// Loads started (a retried load counts once).
    public var loadsStarted = 0
    /// Loads that ended with a value.
    public var loadsCompleted = 0
    /// Loads that ended with an error, after any retries.
    public var loadsFailed = 0
    /// Loads cancelled because every interest left, or pre-empted (``loadsPreempted``).
    public var loadsCancelled = 0
    /// Loads stopped while interest in them remained, so that more urgent waiting work got their
    /// slot (``FetcherConfiguration/preemption``); their ids waited again. Counted in ``loadsCancelled`` too.
    public var loadsPreempted = 0
    /// Retry attempts made.
    public var retries = 0
    /// Results that arrived after their load was cancelled (kept in the cache when successful).
    public var lateResults = 0
    /// Loads running now.
    public var inFlight = 0
    /// The most loads that ran at once.
    public var peakInFlight = 0
    /// Ids waiting for a slot now.
    public var queued = 0
    /// Latencies of recent successful loads.
    public var latency = LatencySummary()
    /// How fast one transfer moves its bytes, past its round trip (bytes per second): the
    /// median slope of recent loads' durations against their sizes, from the bytes their loader
    /// reported (``FetchLoadContext/recordTransferred(bytes:)``). `nil` until 8 loads of
    /// different sizes reported; it falls as more transfers share the link. Positive and finite
    /// whatever the loads reported (any byte count, loads of no time): else `nil`.
    public var transferBytesPerSecond: Double?
    /// How fast the link delivered while loads ran (bytes per second): the reported bytes of
    /// recent loads over the time at least one of them was running. `nil` until a load reported,
    /// and while the loads kept took no time; finite otherwise.
    public var linkBytesPerSecond: Double?
    /// The memory held now, in the cost function's unit: the memory cache's total cost plus, for
    /// each load running, a typical value's cost (the mean cost of the values seen so far; 0
    /// before the first). What ``FetcherConfiguration/memoryBudget`` bounds.
    public var memoryHeld = 0
    /// The most memory held at once (``memoryHeld``), measured each time it grew.
    public var peakMemoryHeld = 0
}

/// A summary of recent finished loads' latencies: from start to result, retries included.
///
/// Loads cancelled before they finished are left out here; the estimates a fetcher plans with
/// (``AsyncFetcher/expectedLatency``, ``AsyncFetcher/typicalLatency``) count them as lasting at
/// least as long as they ran (see `LatencyWindow`), so they can be longer than ``p90`` and ``median``.
public struct LatencySummary: Sendable, Hashable {
    /// The number of samples summarised.
    public var count = 0
    /// The mean, or `nil` without samples.
    package var mean: Duration?
    /// The median, or `nil` without samples.
    public var median: Duration?
    /// The 90th percentile, or `nil` without samples.
    public var p90: Duration?
    /// The largest sample, or `nil` without samples.
    package var max: Duration?

    /// Creates an empty summary.
    init() {}

    /// The fewest samples `expected` trusts.
    static let minimumSamplesForEstimate = 5

    /// The 90th percentile of the finished loads, once there are at least
    /// 5 samples (one early load says little about the next ones). Not public: to plan with,
    /// ``AsyncFetcher/expectedLatency`` also counts cancelled loads.
    var expected: Duration? {
        count >= Self.minimumSamplesForEstimate ? p90 : nil
    }

    /// Summarises the given samples; percentiles by nearest rank, as `LatencyWindow.percentile(_:)`.
    package init(samples: some Collection<Duration>) {
        guard !samples.isEmpty else { return }
        let sorted = samples.sorted()
        count = sorted.count
        mean = Self.mean(sorted)
        median = LatencyWindow.nearestRank(sorted, 0.5)
        p90 = LatencyWindow.nearestRank(sorted, 0.9)
        max = sorted.last
    }

    /// The mean of sorted `samples` (zero without any), for any durations: the exact sum over
    /// the count while the sum surely fits (`Duration`'s arithmetic traps on overflow), else the
    /// sum of each sample over the count.
    static func mean(_ sorted: [Duration]) -> Duration {
        guard let first = sorted.first, let last = sorted.last else { return .zero }
        let count = sorted.count
        let bound = Duration.seconds(Int64.max) / count
        if first >= .zero - bound, last <= bound { return sorted.reduce(.zero, +) / count }
        return sorted.reduce(.zero) { $0 + $1 / count }
    }
}

/// Something that happened inside an ``AsyncFetcher``, for logs and metrics.
///
/// Events are reported synchronously, outside the fetcher's lock, to the handler given at
/// creation; keep the handler fast (forward to a logger or an `AsyncStream`).
public enum FetchEvent<ID: Hashable & Sendable>: Sendable {
    /// A request joined an existing load (`coalesced`) or created one.
    case requested(ID, coalesced: Bool)
    /// A request was answered from the memory cache.
    case cacheHit(ID)
    /// A load started.
    case loadStarted(ID)
    /// A load was answered by the data store.
    case storeHit(ID)
    /// A load ended with a value after `latency`.
    case loadCompleted(ID, latency: Duration)
    /// A preview of the id arrived (a ``PreviewLoader``'s), while its load goes on to the full value.
    case previewLoaded(ID)
    /// An attempt failed; `willRetry` tells whether another attempt follows.
    case loadFailed(ID, error: any Error, willRetry: Bool)
    /// A load was cancelled because every interest left, or pre-empted (stopped for more urgent
    /// work while interest remained: its id waits again, and a later ``loadStarted(_:)`` restarts it).
    case loadCancelled(ID)
    /// A cancelled load's result arrived anyway.
    case lateResult(ID)
    /// A loaded value was written to the data store.
    case storeWritten(ID)
    /// Reading from the data store failed; the load went on to the loader.
    case storeReadFailed(ID, error: any Error)
    /// Writing a value to the data store failed.
    case storeWriteFailed(ID, error: any Error)
    /// A call was refused (for example after ``AsyncFetcher/shutdown()``).
    case rejected(ID, error: PrefetchError)
}
