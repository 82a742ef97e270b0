import PrefetchKit

/// How a ``PagedFeed`` pages: page size, how far ahead it loads, how many pages it keeps, how it retries.
public struct FeedConfiguration: Sendable {
    /// Items per page (default 50). At least 1.
    public var pageSize: Int = 50
    /// How many screens past the visible range to have loaded (default 2, Texture's
    /// `leadingScreensForBatching`). At least 0.
    public var leadingScreens: Double = 2
    /// How many screens before the visible range to have loaded (default 0.5). At least 0.
    public var trailingScreens: Double = 0.5
    /// The most pages kept in memory (default 40); the pages farthest from the visible range go first.
    /// At least 1. This is what lets a huge feed be scrolled without ever being loaded whole.
    public var maxLoadedPages: Int = 40
    /// The most page requests in flight at once (default 2). At least 1.
    public var maxConcurrentLoads: Int = 2
    /// How failed page loads are retried before the page is marked failed (default: 3 attempts).
    public var retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(500))

    /// Creates a configuration with the defaults.
    public init() {}

    /// Throws `PrefetchError` with code `invalidConfiguration`, naming the value and the rule.
    package func validate() throws {
        func fail(_ message: String) -> PrefetchError { PrefetchError(.invalidConfiguration, "FeedConfiguration \(message)") }
        guard pageSize >= 1 else { throw fail("pageSize must be at least 1, got \(pageSize)") }
        guard leadingScreens.isFinite, leadingScreens >= 0 else { throw fail("leadingScreens must be 0 or more, got \(leadingScreens)") }
        guard trailingScreens.isFinite, trailingScreens >= 0 else { throw fail("trailingScreens must be 0 or more, got \(trailingScreens)") }
        guard maxLoadedPages >= 1 else { throw fail("maxLoadedPages must be at least 1, got \(maxLoadedPages)") }
        guard maxConcurrentLoads >= 1 else { throw fail("maxConcurrentLoads must be at least 1, got \(maxConcurrentLoads)") }
        try retry.validate()
    }
}

/// Texture's batch-fetching rule, independent of any view.
public enum BatchFetching {
    /// Whether to fetch the next batch: the content left past the visible end is less than
    /// `leadingScreens` screens.
    ///
    /// - Parameters:
    ///   - distanceToEnd: content (points, rows, items) from the end of the visible area to the end of what is loaded.
    ///   - screenLength: the visible length, in the same unit.
    ///   - leadingScreens: how many screens ahead to fetch (Texture's default is 2).
    public static func shouldFetch(distanceToEnd: Double, screenLength: Double, leadingScreens: Double = 2) -> Bool {
        guard screenLength > 0, leadingScreens > 0 else { return false }
        return distanceToEnd < screenLength * leadingScreens
    }
}
