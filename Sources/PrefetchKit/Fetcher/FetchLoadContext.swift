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
    /// The task-local value behind ``priority``. A constant `TaskLocal` rather than the
    /// `@TaskLocal static var` wrapper: the wrapper's storage counts as shared mutable state
    /// under strict concurrency with Apple's iOS 17 SDK.
    @usableFromInline static let current = TaskLocal<FetchPriority?>(wrappedValue: nil)

    /// The priority of the load being run when it started (the highest of its interests), or
    /// `nil` outside a fetcher's load.
    public static var priority: FetchPriority? { current.get() }

    /// Whether the load being run is a prefetch: nothing wanted it at ``FetchPriority/Level/visible``
    /// when it started. `false` outside a fetcher's load.
    public static var isPrefetch: Bool {
        guard let priority else { return false }
        return priority.level < .visible
    }
}
