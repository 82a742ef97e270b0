import PrefetchKit

/// The overall state of a ``PagedFeed``.
public enum FeedPhase: Sendable {
    /// Nothing in flight, no failure.
    case idle
    /// At least one page is loading.
    case loading
    /// A page failed after its retries; ``PagedFeed/retryFailedPages()`` tries again.
    case failed(page: Int, error: any Error)

    /// Whether this is the ``failed(page:error:)`` state.
    public var isFailed: Bool { if case .failed = self { true } else { false } }
}

/// A paged model list of the app's `Item`s: loads pages of items as the user nears the end of what
/// is loaded, and keeps only the pages near the visible range, so a UI can scroll a 100,000-item
/// feed without ever loading it whole.
///
/// Call ``loadMoreIfNeeded(visibleRange:)`` whenever the visible range changes (from
/// `scrollViewDidScroll`, a collection view's layout pass, or a test). The feed makes sure the
/// pages from ``FeedConfiguration/trailingScreens`` before to ``FeedConfiguration/leadingScreens``
/// after the visible range are loaded or loading, nearest first, at most
/// ``FeedConfiguration/maxConcurrentLoads`` at once, and never the same page twice at once.
///
/// ```swift
/// let feed = try PagedFeed(loader: photoPages)             // a PagedFeed<Photo>
/// await feed.loadMoreIfNeeded(visibleRange: 0..<20)       // loads pages 0...1 (2 screens ahead)
/// if let photo = await feed.item(at: 7) { cell.title = photo.title }
/// ```
///
/// Each page the loader returns is checked against its request (``FeedPage/validate(offset:limit:)``):
/// a page that breaks a rule fails that load with the error naming the rule, as a loader's error
/// would, so one item's data never lands in another's cell.
///
/// A failed load is retried by ``FeedConfiguration/retry`` on the injected clock; after the
/// last attempt the page is marked failed, ``phase`` becomes ``FeedPhase/failed(page:error:)``,
/// and the page is not requested again until ``retryFailedPages()``.
public actor PagedFeed<Item: Sendable> {
    private enum PageState {
        /// A load in flight; only a result carrying this load's number is accepted for the page.
        case loading(UInt64, Task<Void, Never>)
        case loaded([Item])
        case failed(any Error)
    }

    private let loader: any FeedPageLoader<Item>
    private let clock: any Clock<Duration>
    private let onChange: (@Sendable (Int) -> Void)?
    private var pages: [Int: PageState] = [:]
    private var queue: [Int] = []
    private var lastVisible: Range<Int> = 0..<0
    private var lastError: (page: Int, error: any Error)?
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var loadsStarted: UInt64 = 0
    /// The configuration the feed was created with.
    public let configuration: FeedConfiguration
    /// How many items the whole feed has, known after the first page arrives.
    public private(set) var totalCount: Int?
    /// How many page requests were sent, retries included.
    public private(set) var requestCount = 0

    /// Creates a feed.
    ///
    /// - Parameters:
    ///   - configuration: paging and retry settings; checked here.
    ///   - clock: the clock retry waits use (a `ManualClock` in tests).
    ///   - onChange: called with a page index whenever that page loads, fails or is dropped.
    ///   - loader: loads pages of the app's items.
    public init(
        configuration: FeedConfiguration = FeedConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        onChange: (@Sendable (Int) -> Void)? = nil,
        loader: some FeedPageLoader<Item>
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.clock = clock
        self.onChange = onChange
        self.loader = loader
    }

    // MARK: Reading

    /// The item at `index`, if its page is loaded.
    /// - Complexity: O(1)
    public func item(at index: Int) -> Item? {
        guard index >= 0, case .loaded(let items)? = pages[index / configuration.pageSize] else { return nil }
        let offset = index % configuration.pageSize
        return offset < items.count ? items[offset] : nil
    }

    /// The overall state: loading, failed (with the latest failure) or idle.
    public var phase: FeedPhase {
        if let lastError { return .failed(page: lastError.page, error: lastError.error) }
        return isBusy ? .loading : .idle
    }

    private var isBusy: Bool {
        !queue.isEmpty || pages.values.contains { if case .loading = $0 { true } else { false } }
    }

    /// The indexes of pages held in memory now, sorted.
    public var loadedPages: [Int] {
        pages.compactMap { if case .loaded = $0.value { $0.key } else { nil } }.sorted()
    }

    /// The indexes of pages loading now, sorted.
    public var loadingPages: [Int] {
        pages.compactMap { if case .loading = $0.value { $0.key } else { nil } }.sorted()
    }

    // MARK: Driving

    /// Makes sure the pages around `visibleRange` (in item indexes) are loaded or loading.
    ///
    /// Before the total is known, only the first page containing the range is requested. Pages far
    /// from the range are dropped when more than ``FeedConfiguration/maxLoadedPages`` are held.
    /// - Returns: the pages newly requested, nearest first.
    @discardableResult
    public func loadMoreIfNeeded(visibleRange: Range<Int>) -> [Int] {
        lastVisible = visibleRange
        let wanted = wantedPages(for: visibleRange)
        // Keep the queue to pages still wanted, in the new nearest-first order.
        queue = wanted.filter { queue.contains($0) }
        var added: [Int] = []
        for page in wanted where pages[page] == nil && !queue.contains(page) {
            queue.append(page)
            added.append(page)
        }
        queue.sort { distance($0) < distance($1) }
        startQueued()
        return added
    }

    /// Clears failed pages and the failed phase, and requests the wanted pages again.
    @discardableResult
    public func retryFailedPages() -> [Int] {
        for (page, state) in pages { if case .failed = state { pages[page] = nil } }
        lastError = nil
        return loadMoreIfNeeded(visibleRange: lastVisible)
    }

    /// Suspends until no page is loading or queued (a failed page counts as done).
    public func waitUntilSettled() async {
        if isBusy {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
    }

    /// Cancels every load in flight and forgets every page.
    public func reset() {
        for state in pages.values { if case .loading(_, let task) = state { task.cancel() } }
        pages.removeAll()
        queue.removeAll()
        lastError = nil
        totalCount = nil
        resumeIdleWaitersIfSettled()
    }

    // MARK: Internals

    private func wantedPages(for visible: Range<Int>) -> [Int] {
        let size = configuration.pageSize
        let screen = Double(max(visible.count, 1))
        var lower = max(0, visible.lowerBound - Int((screen * configuration.trailingScreens).rounded(.up)))
        var upper = visible.upperBound + Int((screen * configuration.leadingScreens).rounded(.up))
        guard let total = totalCount else {
            // Unknown size: just the page of the range's start, which tells the total.
            return [max(0, visible.lowerBound) / size]
        }
        upper = min(upper, total)
        lower = min(lower, upper)
        guard lower < upper else { return [] }
        let first = lower / size, last = (upper - 1) / size
        // Never want more pages than may be kept: the nearest ones win, so a wide window settles
        // instead of dropping and reloading its own far pages.
        return Array((first...last).sorted { (distance($0), $0) < (distance($1), $1) }.prefix(configuration.maxLoadedPages))
    }

    /// How far a page is from the visible range, in pages (0 when they overlap).
    private func distance(_ page: Int) -> Int {
        let size = configuration.pageSize
        let start = page * size, end = start + size
        if end <= lastVisible.lowerBound { return (lastVisible.lowerBound - end) / size + 1 }
        if start >= lastVisible.upperBound { return (start - lastVisible.upperBound) / size + 1 }
        return 0
    }

    private func startQueued() {
        var inFlight = loadingPages.count
        while inFlight < configuration.maxConcurrentLoads, !queue.isEmpty {
            let page = queue.removeFirst()
            guard pages[page] == nil else { continue }
            loadsStarted += 1
            let load = loadsStarted
            let task = Task { await self.run(page, load: load) }
            pages[page] = .loading(load, task)
            inFlight += 1
        }
    }

    private func run(_ page: Int, load: UInt64) async {
        let size = configuration.pageSize
        let retry = configuration.retry
        var attempt = 0
        while true {
            attempt += 1
            requestCount += 1
            do {
                let result = try await loader.loadPage(offset: page * size, limit: size)
                try result.validate(offset: page * size, limit: size)
                return finish(page, load: load, .success(result))
            } catch {
                if Task.isCancelled || error is CancellationError { return finish(page, load: load, .failure(CancellationError())) }
                guard attempt < retry.maxAttempts, retry.shouldRetry(error) else { return finish(page, load: load, .failure(error)) }
                let delay = retry.delay(afterAttempt: attempt, random: nextRandom())
                do { try await Self.sleep(clock, delay) } catch { return finish(page, load: load, .failure(CancellationError())) }
            }
        }
    }

    private func finish(_ page: Int, load: UInt64, _ result: Result<FeedPage<Item>, any Error>) {
        // Only this load's own result counts: reset() or a drop may have replaced it meanwhile.
        guard case .loading(let current, _)? = pages[page], current == load else { return }
        switch result {
        case .success(let loaded):
            totalCount = loaded.total
            pages[page] = .loaded(loaded.items)
        case .failure(let error) where error is CancellationError:
            pages[page] = nil
        case .failure(let error):
            pages[page] = .failed(error)
            lastError = (page, error)
        }
        onChange?(page)
        evictFarPages()
        // The first page tells the total: plan the real window now.
        _ = loadMoreIfNeeded(visibleRange: lastVisible)
        resumeIdleWaitersIfSettled()
    }

    /// Drops loaded pages outside the wanted window, farthest first, while more than
    /// ``FeedConfiguration/maxLoadedPages`` are held. A wanted page is never dropped (the window
    /// itself is capped at that many pages), so a drop can never cause a reload of the same page.
    private func evictFarPages() {
        let loaded = loadedPages
        guard loaded.count > configuration.maxLoadedPages else { return }
        let wanted = Set(wantedPages(for: lastVisible))
        let farthestFirst = loaded.filter { !wanted.contains($0) }.sorted { (distance($0), $0) > (distance($1), $1) }
        for page in farthestFirst.prefix(loaded.count - configuration.maxLoadedPages) {
            pages[page] = nil
            onChange?(page)
        }
    }

    private func resumeIdleWaitersIfSettled() {
        if isBusy { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    private func nextRandom() -> Double {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }

    private static func sleep(_ clock: any Clock<Duration>, _ duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }
}
