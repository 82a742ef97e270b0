import Foundation
import PrefetchDiskCache
import PrefetchFeed
import PrefetchHTTP
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation
import PrefetchToolSupport
import PrefetchTesting

/// The sample app's data from a server (`--source`, `--serve`): the model list page by page from
/// `<source>/items` (``FeedItem``s, by ``HTTPFeedPageLoader``) with a ``PrefetchFeed/PagedFeed``, each thumbnail from its item's
/// `thumbnailURL` with an ``PrefetchHTTP/HTTPLoader``, and a ``PrefetchDiskCache/DiskCache``
/// between the fetcher's memory cache and the network.
///
/// The view's item count is the feed's `total`, read from the first page before the run starts;
/// items whose page has not arrived show a placeholder (no model, no load) until it does. The
/// feed keeps at most ``FeedConfiguration/maxLoadedPages`` pages, so a 100,000-item feed is
/// never held whole: scroll back past the dropped pages and they load again.
///
/// The fetcher runs on the real clock: memory cache, then the disk cache, then the network.
/// ``frameEnded()`` brings the feed's pages in once a frame.
@MainActor
package final class ServerBackend: DemoBackend {
    /// The server's base URL.
    package let baseURL: URL
    /// The disk cache's file.
    package let diskCacheURL: URL
    /// The model list, paged.
    package let models: ModelList
    /// The thumbnail loader.
    package let thumbnails: ThumbnailLoader
    private let feed: PagedFeed<FeedItem>
    private let http: HTTPLoader<URL>
    private let disk: DiskCache<UUID>
    private let changedPages: Locked<Set<Int>>
    private var requestedRange: Range<Int>?
    private var lastFailureRetry: ContinuousClock.Instant?
    private var isClosed = false
    package let app: SampleApp<UUID, DisplayData>
    package let board: LoadBoard
    private let settings: DemoSettings
    private let start: Locked<ContinuousClock.Instant>
    /// The item index of every identifier whose page has arrived, for the meter.
    private let indexes: Locked<[UUID: Int]>
    /// Body bytes received over HTTP so far.
    private let bytesReceived: Locked<Int>
    /// The started server's shared bandwidth, when given.
    private let serverBandwidth: BandwidthRate?

    /// Items per page of `/items`.
    package static let pageSize = 50
    /// The longest wait for the first page.
    package static let firstPageDeadline = Duration.seconds(15)

    private init(baseURL: URL, diskCacheURL: URL, models: ModelList, feed: PagedFeed<FeedItem>, http: HTTPLoader<URL>,
                 disk: DiskCache<UUID>, changedPages: Locked<Set<Int>>, thumbnails: ThumbnailLoader,
                 settings: DemoSettings, bytesReceived: Locked<Int>, serverBandwidth: BandwidthRate?) throws {
        self.bytesReceived = bytesReceived
        self.serverBandwidth = serverBandwidth
        self.baseURL = baseURL
        self.diskCacheURL = diskCacheURL
        self.models = models
        self.feed = feed
        self.http = http
        self.disk = disk
        self.changedPages = changedPages
        self.thumbnails = thumbnails
        let start = Locked(ContinuousClock.now)
        self.start = start
        let meter = ReadinessMeter(now: { (ContinuousClock.now - start.withLock { $0 }).seconds })
        let board = LoadBoard()
        self.board = board
        let indexes = Locked([UUID: Int]())
        self.indexes = indexes
        var settings = settings
        settings.itemCount = models.count
        self.settings = settings
        let fetcher = try AsyncFetcher(
            configuration: Self.fetcherConfiguration(for: settings), clock: ContinuousClock(), store: ThumbnailDiskStore(disk),
            cost: Self.cost(for: settings),
            onEvent: { event in
                board.record(event)
                meter.record(event, item: { id in indexes.withLock { $0[id] ?? -1 } })
            },
            loader: thumbnails)
        app = try SampleApp(
            layout: settings.scenarioLayout, viewport: settings.viewport, itemCount: models.count, fetcher: fetcher, meter: meter,
            identifier: { models.model(at: $0)?.identifier })
        app.use(settings.toolkit)
        app.policy = settings.policy
        app.isPrefetchingEnabled = settings.prefetching
        app.networkConditions = settings.conditions
    }

    /// Opens the disk cache at `diskCache` (emptied first when `cold`), loads the first page of
    /// `<baseURL>/items` to learn the item count, and returns the source.
    ///
    /// - Parameters:
    ///   - serverBandwidth: the server's shared bandwidth, when known: the screen and the summary
    ///     show the bytes received per second over it.
    ///   - shouldStop: polled while waiting for the first page (Ctrl-C).
    /// - Throws: ``DemoError`` naming the disk cache file or the URL and what went wrong.
    package static func open(
        baseURL: URL, diskCache: URL, cold: Bool, settings: DemoSettings, serverBandwidth: BandwidthRate? = nil,
        shouldStop: () -> Bool = { false }
    ) async throws -> ServerBackend {
        let disk: DiskCache<UUID>
        do {
            disk = try DiskCache<UUID>(configuration: DiskCacheConfiguration(fileURL: diskCache))
            if cold { try await disk.removeAll() }
        } catch {
            throw DemoError("could not open the disk cache at \(diskCache.path)", cause: error)
        }
        var httpConfiguration = HTTPLoaderConfiguration()
        httpConfiguration.connectTimeout = .seconds(5)
        httpConfiguration.totalTimeout = .seconds(15)
        let bytesReceived = Locked(0)
        httpConfiguration.onBytesReceived = { _, bytes in bytesReceived.withLock { $0 += bytes } }
        let http = try HTTPLoader<URL>(configuration: httpConfiguration)
        let changedPages = Locked(Set<Int>())
        var feedConfiguration = FeedConfiguration()
        feedConfiguration.pageSize = pageSize
        let pages = try HTTPFeedPageLoader(baseURL: baseURL, configuration: httpConfiguration)
        let feed = try PagedFeed(configuration: feedConfiguration, onChange: { page in
            changedPages.withLock { _ = $0.insert(page) }
        }, loader: pages)

        await feed.loadMoreIfNeeded(visibleRange: 0..<1)
        let clock = ContinuousClock()
        let deadline = clock.now + firstPageDeadline
        var total: Int?
        while total == nil {
            total = await feed.totalCount
            if total != nil { break }
            let items = baseURL.appendingPathComponent("items").absoluteString
            if case .failed(_, let error) = await feed.phase {
                http.invalidate()
                try? await disk.close()
                throw DemoError("could not load the first page of \(items)", cause: error)
            }
            if shouldStop() || clock.now >= deadline {
                await feed.reset()
                http.invalidate()
                try? await disk.close()
                if shouldStop() { throw CancellationError() }
                throw DemoError("\(items) sent no page within \(firstPageDeadline)")
            }
            try await clock.sleep(for: .milliseconds(10))
        }
        let source: ServerBackend
        do {
            source = try ServerBackend(
                baseURL: baseURL, diskCacheURL: diskCache, models: ModelList(count: total ?? 0, pageSize: pageSize),
                feed: feed, http: http, disk: disk, changedPages: changedPages, thumbnails: ThumbnailLoader(http: http),
                settings: settings, bytesReceived: bytesReceived, serverBandwidth: serverBandwidth)
        } catch {
            await feed.reset()
            http.invalidate()
            try? await disk.close()
            throw error
        }
        // Take the first page now, so the first layout pass has its models.
        _ = await source.syncPages()
        return source
    }

    /// The fetcher's settings for a real network: the layout's cap, retries by `.standard`,
    /// and a memory cache of at most 2,000 thumbnails or 32 MiB.
    package static func fetcherConfiguration(for settings: DemoSettings) -> FetcherConfiguration {
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = settings.maxConcurrentLoads
        configuration.retry = .standard
        configuration.cacheCountLimit = 2_000
        configuration.cacheCostLimit = 32 * 1024 * 1024
        if let budget = settings.memoryBudgetBytes {
            // Values cost their decoded size, and the budget bounds the cache and the loads in flight.
            configuration.cacheCostLimit = .max
            configuration.memoryBudget = budget
        }
        return configuration
    }

    /// A value's memory cost: its bytes, or, under a memory budget, the settings' decoded size.
    static func cost(for settings: DemoSettings) -> @Sendable (DisplayData) -> Int {
        guard settings.memoryBudgetBytes != nil else { return { $0.payload.count + 64 } }
        return { [bytes = settings.valueBytes] _ in bytes }
    }

    package var label: String { baseURL.absoluteString }

    /// The server sets the latency.
    package var currentLatency: LatencyModel? { nil }

    /// Under a memory budget each value costs the settings' decoded size; otherwise its bytes.
    package var memoryCost: MemoryCost {
        settings.memoryBudgetBytes == nil ? .payload : .modelled(bytesPerValue: settings.valueBytes)
    }

    /// A server's feed decides its items: new items above are the simulated network's (the `n` key says so).
    package func insertAbove(count: Int) -> String { "new items above: only on the simulated network (without --serve or --source)" }

    package func scaleLatency(by factor: Double) -> String {
        "the server sets the latency (--server-latency-ms with --serve)"
    }

    /// Real time moves by itself: nothing to do.
    package func advance(to time: Double) async {}

    /// Plays the settings' script in real time: the same gestures as over the simulated network,
    /// but each frame (about 60 a second) is stepped to the wall clock's time, and loads take as
    /// long as the server and the disk take, so a run is not repeatable the way a virtual-time run is.
    package func play(on scene: DemoScene, onFrame: (FrameDriver.Frame) async throws -> Bool) async throws -> SimulationResult {
        var gestures = GestureDriver(gestures: settings.script?.gestures ?? [])
        start.withLock { $0 = ContinuousClock.now }
        let end = try await FrameDriver(duration: settings.duration, realTime: true).play(
            &gestures, on: app.view, step: { app.step(to: $0); await frameEnded() },
            afterFrame: { frame in
                guard frame.index > 0 else {
                    app.meter.startCounting()
                    return true
                }
                return try await onFrame(frame)
            })
        app.finish()
        var result = app.meter.result(scenario: settings.scenario.name, policy: settings.policy.name, duration: end)
        // The bytes the server sent, in the bench's keys too (with a budget, its share of it).
        result.bytesOnWire = bytesReceived.withLock { $0 }
        result.linkUtilisation = wire?.utilisation ?? 0
        result.peakMemoryBytes = app.fetcher.statistics.peakMemoryHeld
        return result
    }

    /// Tells the feed what is on screen and brings the pages that arrived (or were dropped)
    /// since the last call into the model list, filling the placeholder cells they cover.
    ///
    /// Call once a frame, after stepping the view.
    package func frameEnded() async {
        let shown = app.visibleItems
        let visible = shown.min().flatMap { lo in shown.max().map { lo..<($0 + 1) } } ?? 0..<1
        if visible != requestedRange {
            requestedRange = visible
            await feed.loadMoreIfNeeded(visibleRange: visible)
        }
        let (arrived, missing) = await syncPages()
        if !arrived.isEmpty { app.fillPlaceholders() }
        // A page that failed after its retries is asked for again, at most once a second.
        if missing, case .failed = await feed.phase {
            let now = ContinuousClock.now
            if lastFailureRetry.map({ now - $0 > .seconds(1) }) ?? true {
                lastFailureRetry = now
                await feed.retryFailedPages()
            }
        }
    }

    /// Mirrors the feed's pages that changed since the last call into the model list: copies
    /// the pages that arrived (registering their thumbnail URLs) and drops the pages the feed
    /// dropped. Returns the pages that arrived, and whether a changed page is not loaded.
    private func syncPages() async -> (arrived: [Int], missing: Bool) {
        let changed = changedPages.withLock { pages -> Set<Int> in
            defer { pages.removeAll() }
            return pages
        }
        guard !changed.isEmpty else { return ([], false) }
        let loaded = Set(await feed.loadedPages)
        var arrived: [Int] = []
        var missing = false
        for page in changed.sorted() {
            guard loaded.contains(page) else {
                models.setPage(page, models: nil)
                missing = true
                continue
            }
            var pageModels: [Model] = []
            for index in models.indexes(ofPage: page) {
                guard let item = await feed.item(at: index) else { break }
                let model = Model(index: index, feedItemID: item.id, title: item.title)
                thumbnails.register(model.identifier, url: item.thumbnailURL)
                indexes.withLock { $0[model.identifier] = index }
                pageModels.append(model)
            }
            models.setPage(page, models: pageModels)
            arrived.append(page)
        }
        return (arrived, missing)
    }

    /// Stops the feed, cancels the requests in flight and closes the disk cache (saving its
    /// access times). Safe to call twice.
    package func close() async {
        guard !isClosed else { return }
        isClosed = true
        await feed.reset()
        http.invalidate()
        try? await disk.close()
    }
}

extension ServerBackend {
    /// This source's figures: disk hits, HTTP requests, failures.
    package func networkFigures() async -> NetworkFigures? {
        let stats = app.fetcher.statistics
        let wire = wire
        return NetworkFigures(
            source: baseURL.absoluteString, diskCache: diskCacheURL.path, diskHits: stats.storeHits, networkLoads: thumbnails.requestCount,
            pageLoads: await feed.requestCount, loadsFailed: stats.loadsFailed, bytesReceived: wire?.bytesReceived ?? 0,
            serverBandwidth: serverBandwidth?.bytesPerSecond)
    }

    /// The body bytes received so far, thumbnails and pages, and their share of the server's bandwidth.
    package var wire: WireFigures? {
        WireFigures(bytesReceived: bytesReceived.withLock { $0 }, seconds: (ContinuousClock.now - start.withLock { $0 }).seconds,
                    budget: serverBandwidth)
    }
}
