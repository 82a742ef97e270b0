import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The sample app: a model list (1,000 models, or a server's feed page by page), an
/// ``AsyncFetcher`` on a simulated or real network, and a collection view (grid) or table view
/// (list) whose data sources are the seeds' code.
///
/// The scene does not know about time: a driver steps its view, in real time or virtual time.
@MainActor
package final class DemoScene {
    package let settings: DemoSettings
    package let models: ModelList
    package let fetcher: AsyncFetcher<UUID, DisplayData>
    package let metrics: DemoMetrics
    package let board: LoadBoard
    package let signal: ChangeSignal
    package let view: ItemScrollView
    let filler: CellFiller
    private let gridLayout: FlowLayout?
    private let collectionSource: CustomDataSource?
    private let listSource: ListDataSource?
    private let observer: AppearanceObserver

    /// Builds the scene of the simulated network around `loader`: the settings' models, held
    /// whole, and `clock` for the fetcher's latency measurements.
    package convenience init<C: Clock>(
        settings: DemoSettings, loader: some DataLoader<UUID, DisplayData>, clock: C,
        signal: ChangeSignal, now: @escaping () -> Double
    ) throws where C.Duration == Duration {
        var configuration = FetcherConfiguration()
        configuration.maxConcurrentLoads = settings.maxConcurrentLoads
        configuration.cacheCountLimit = max(settings.itemCount, 1)
        try self.init(
            settings: settings, models: ModelList(models: Model.make(count: settings.itemCount, seed: settings.seed)),
            fetcher: configuration, store: nil, loader: loader, clock: clock, signal: signal, now: now)
    }

    /// Builds the scene over `models` with a fetcher of `configuration` that consults `store`
    /// (a disk cache) before `loader`.
    package init<C: Clock>(
        settings: DemoSettings, models: ModelList, fetcher configuration: FetcherConfiguration,
        store: (any DataStore<UUID, DisplayData>)?, loader: some DataLoader<UUID, DisplayData>, clock: C,
        signal: ChangeSignal, now: @escaping () -> Double
    ) throws where C.Duration == Duration {
        self.settings = settings
        self.signal = signal
        self.models = models
        let board = LoadBoard(signal: signal)
        self.board = board
        fetcher = try AsyncFetcher(
            configuration: configuration, clock: clock, store: store,
            cost: { $0.payload.count + 64 }, onEvent: { board.record($0) }, loader: loader)
        metrics = DemoMetrics(now: now)
        filler = CellFiller(asyncFetcher: fetcher, metrics: metrics, signal: signal)
        observer = AppearanceObserver(metrics: metrics, asyncFetcher: fetcher)

        let viewport = settings.viewport
        let frame = CGRect(x: 0, y: 0, width: viewport.width, height: viewport.height)
        switch settings.layout {
        case .grid:
            // The seeds' storyboard: 150×100 items, 10 points apart and from the edges: two columns.
            let layout = try FlowLayout(
                itemSize: CGSize(width: 150, height: 100), minimumLineSpacing: 10, minimumInteritemSpacing: 10,
                sectionInset: EdgeInsets(top: 10, left: 10, bottom: 10, right: 10))
            let collectionView = CollectionView(frame: frame, collectionViewLayout: layout)
            let source = CustomDataSource(models: models, filler: filler)
            collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
            // Set the collection view's data source and prefetching data source.
            collectionView.dataSource = source
            collectionView.prefetchDataSource = source
            collectionView.delegate = observer
            view = collectionView
            gridLayout = layout
            collectionSource = source
            listSource = nil
        case .list:
            let tableView = TableView(frame: frame)
            tableView.rowHeight = 66
            let source = ListDataSource(models: models, filler: filler)
            tableView.register(ListCell.self, forCellReuseIdentifier: ListCell.identifier)
            tableView.dataSource = source
            tableView.prefetchDataSource = source
            tableView.delegate = observer
            view = tableView
            gridLayout = nil
            collectionSource = nil
            listSource = source
        }
        view.prefetchPolicy = settings.policy.policy
        view.isPrefetchingEnabled = settings.prefetching
    }

    /// Steps the view to `time` after telling its policy the fetcher's latency estimate, then
    /// withdraws the consumers of the cells that went back to the reuse pool.
    package func step(to time: Double) {
        // A jump (scrollToItem) lays out at once: release what that pass pooled, too.
        filler.releasePooledConsumers()
        view.step(to: time)
        filler.releasePooledConsumers()
        filler.prunePlaceholders()
    }

    /// The models of `indexes` arrived (a feed page): fills the cells that showed placeholders
    /// and starts the prefetches the view asked for before the models were known.
    package func modelsArrived(_ indexes: Range<Int>) {
        let pending = Set(view.indexPathsPendingPrefetch.map(\.item).filter { indexes.contains($0) })
        (collectionSource as (any PagedDataSource)? ?? listSource)?.modelsArrived(indexes, pendingPrefetch: pending)
    }

    /// The items on screen, as a range of item indexes (nil when none).
    package var visibleItems: ClosedRange<Int>? {
        let shown: [Int]
        if let collectionView = view as? CollectionView {
            shown = collectionView.indexPathsForVisibleItems.map(\.item)
        } else if let tableView = view as? TableView {
            shown = tableView.indexPathsForVisibleRows.map(\.row)
        } else {
            shown = []
        }
        return shown.min().flatMap { lo in shown.max().map { lo...$0 } }
    }

    /// Items sent to cancel-prefetching callbacks so far.
    package var prefetchCancels: Int { collectionSource?.prefetchCancels ?? listSource?.prefetchCancels ?? 0 }

    /// Whether a consumer of `id` still waits for its completion on the main actor.
    package func hasLiveConsumers(_ id: UUID) -> Bool { filler.hasLiveConsumers(id) }

    // MARK: What the screen shows

    /// The items whose frames meet `rect` (content coordinates), with their frames.
    package func items(in rect: CGRect) -> [(index: Int, frame: CGRect)] {
        var result: [(Int, CGRect)] = []
        if let gridLayout {
            gridLayout.forEachItem(in: rect) { indexPath, frame in result.append((indexPath.item, frame)) }
        } else {
            let height = 66.0
            let first = max(0, Int((rect.minY / height).rounded(.down)))
            let last = min(models.count - 1, Int((rect.maxY / height).rounded(.up)))
            if first <= last {
                for row in first...last {
                    result.append((row, CGRect(x: 0, y: Double(row) * height, width: view.bounds.width, height: height)))
                }
            }
        }
        return result
    }

    /// The tiles to draw for the items whose frames meet `rect`: each item's displayed cell's
    /// content, or else what the fetcher has for it.
    package func tiles(in rect: CGRect) -> [Tile] {
        let pending = Set(view.indexPathsPendingPrefetch.map(\.item))
        return items(in: rect).map { index, frame in
            guard let model = models.model(at: index) else {
                // A feed item whose page has not arrived: a placeholder.
                return Tile(index: index, frame: frame, title: "Item \(index) …", state: pending.contains(index) ? .waiting : .blank)
            }
            let indexPath = IndexPath(item: index, section: 0)
            let cell: (any DataCell)?
            if let collectionView = view as? CollectionView {
                cell = collectionView.cellForItem(at: indexPath) as? Cell
            } else if let tableView = view as? TableView {
                cell = tableView.cellForRow(at: indexPath) as? ListCell
            } else {
                cell = nil
            }
            let state: Tile.State
            if let cell {
                if let data = cell.data { state = .shown(data) }
                else { state = board.isLoading(model.identifier) ? .loading : .waiting }
            } else if let data = fetcher.fetchedData(for: model.identifier) {
                state = .cached(data)
            } else if board.isLoading(model.identifier) {
                state = .loading
            } else {
                state = pending.contains(index) ? .waiting : .blank
            }
            return Tile(index: index, frame: frame, title: model.title, state: state)
        }
    }

    /// The status figures of the screen and the progress lines.
    package var status: StatusFigures {
        let stats = fetcher.statistics
        return StatusFigures(
            offset: view.contentOffset.y, velocity: view.velocity,
            visible: visibleItems,
            inFlight: stats.inFlight, queued: stats.queued, cached: fetcher.cachedCount,
            displayReadyRate: metrics.displayReadyRate, appearances: metrics.appearances,
            loadsCancelled: stats.loadsCancelled, prefetchCancels: prefetchCancels,
            expectedLatencyMs: fetcher.expectedLatency.map { $0.seconds * 1000 })
    }

    /// The run's summary so far.
    package var summary: DemoSummary {
        let stats = fetcher.statistics
        let displayed = Set(metrics.everDisplayed.map { models.identifier(at: $0) })
        return DemoSummary(
            displayed: metrics.appearances,
            displayReadyRate: metrics.displayReadyRate,
            visibleWaitMeanMs: metrics.visibleWaitMeanMs,
            visibleWaitP95Ms: metrics.visibleWaitP95Ms,
            loadsStarted: stats.loadsStarted,
            loadsCancelled: stats.loadsCancelled,
            loadsWasted: board.completed.filter { !displayed.contains($0) }.count,
            peakInFlight: stats.peakInFlight)
    }
}

/// The figures of the status line.
package struct StatusFigures: Sendable {
    var offset: Double
    var velocity: Double
    var visible: ClosedRange<Int>?
    var inFlight: Int
    var queued: Int
    var cached: Int
    var displayReadyRate: Double
    var appearances: Int
    var loadsCancelled: Int
    var prefetchCancels: Int
    var expectedLatencyMs: Double?
}
