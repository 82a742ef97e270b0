/// What a loader can know about the load it runs: ``AsyncFetcher`` sets it around each call of
/// its loader (and of its data store), as task-local values.
///
/// A loader that talks to the network can mark prefetches so that the system may refuse them on
/// a constrained network (Low Data Mode), while a visible cell's load goes through;
/// `PrefetchHTTP`'s `HTTPLoader` does so:
///
/// ```swift
/// struct ThumbnailLoader: DataLoader {
///     func load(_ id: Int) async throws -> String {
///         // On Apple platforms: request.allowsConstrainedNetworkAccess = !FetchLoadContext.isPrefetch
///         FetchLoadContext.isPrefetch ? "prefetched \(id)" : "wanted \(id)"
///     }
/// }
/// ```
public enum FetchLoadContext {
    /// The priority of the load being run when it started (the highest of its interests), or
    /// `nil` outside a fetcher's load.
    @TaskLocal public static var priority: FetchPriority?

    /// Whether the load being run is a prefetch: nothing wanted it at ``FetchPriority/Level/visible``
    /// when it started. `false` outside a fetcher's load.
    public static var isPrefetch: Bool {
        guard let priority else { return false }
        return priority.level < .visible
    }
}
