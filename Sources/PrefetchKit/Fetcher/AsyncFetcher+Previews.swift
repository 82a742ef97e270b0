// The fetcher's preview calls (the article "Previews first"): what is cached at which quality,
// and a consumer that is shown a preview on its way to the full value.
extension AsyncFetcher {
    /// Returns the cached value for `id` if it is at least of `quality`, and marks it recently used.
    ///
    /// ``fetchedData(for:)`` returns a cached preview too; this one tells a cell whether what it
    /// shows is final: `fetchedData(for: id, atLeast: .full)` is `nil` while only a preview is cached.
    /// - Complexity: O(1)
    public func fetchedData(for id: ID, atLeast quality: FetchQuality) -> Value? {
        state.withLock { machine in
            if quality == .full, machine.previews.cached.contains(id) { return nil }
            return machine.cache.value(forKey: id)
        }
    }

    /// Starts loading `id` at `quality` with a completion handler, showing `preview` a preview on the way.
    ///
    /// At ``FetchQuality/preview`` the completion hears the first value there is: a preview, or
    /// the full value if it is cached or comes first. At ``FetchQuality/full`` the completion hears
    /// the full value, and `preview`, if given, is called at most once before it: at once with a
    /// cached preview, or when the load's preview arrives (a ``PreviewLoader``'s progressive
    /// prefix). A cell shows the preview, then the full value; both run on the thread that has
    /// them, so hop to the main actor and check that the cell still shows `id`.
    ///
    /// ```swift
    /// let fetcher = try AsyncFetcher<Int, String> { id in "photo \(id)" }
    /// fetcher.fetchAsync(7, quality: .full, preview: { blurry in print("preview", blurry) }) { result in
    ///     print("full", result)
    /// }
    /// ```
    /// - Returns: a handle that withdraws this consumer; `nil` for a cache hit or a refusal.
    @discardableResult
    public func fetchAsync(_ id: ID, priority: FetchPriority = .visible, quality: FetchQuality,
                           preview: (@Sendable (Value) -> Void)? = nil, completion: @escaping Completion) -> FetchHandle? {
        let waiter: Consumer = preview.map { .previewing(completion, preview: $0) } ?? .handler(completion)
        return request(id, priority: priority, quality: quality, waiter: waiter, preview: preview)
    }
}
