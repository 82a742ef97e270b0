import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The sample app: a backend's model list and fetcher (the simulated network, or a server's
/// feed page by page), and a collection view (grid) or table view (list) whose data sources are
/// the code of Apple's sample.
///
/// The scene does not know about time: a driver steps its view, in real time or virtual time.
@MainActor
package final class DemoScene {
    /// The grid or the list, with its data source.
    package enum Surface {
        /// The collection view and `CustomDataSource` of Apple's sample.
        case grid(CollectionView, CustomDataSource)
        /// The tutorial's table view and its data source.
        case list(TableView, ListDataSource)
    }

    package let settings: DemoSettings
    package let backend: any DemoBackend
    package let surface: Surface
    package let view: ItemScrollView
    let filler: CellFiller
    private let observer: AppearanceObserver
    /// The fetcher's prefetch data source: the view's controller decides through it.
    private let prefetcher: FetcherPrefetchDataSource<UUID, DisplayData>

    /// Builds the scene of `settings` over `backend`'s models and fetcher.
    package init(settings: DemoSettings, backend: any DemoBackend) throws {
        self.settings = settings
        self.backend = backend
        filler = CellFiller(asyncFetcher: backend.fetcher, deliveries: backend.deliveries, meter: backend.meter)
        observer = AppearanceObserver(meter: backend.meter, filler: filler, models: backend.models)
        let models = backend.models
        prefetcher = backend.fetcher.prefetchDataSource { indexPath in models.model(at: indexPath.item)?.identifier }
        var layout = settings.scenarioLayout
        layout.itemCount = max(backend.models.count, 1)
        switch try layout.makeView(viewport: settings.viewport) {
        case .collection(let collectionView):
            let source = CustomDataSource(models: backend.models, filler: filler)
            collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
            // Set the collection view's data source and prefetching data source.
            collectionView.dataSource = source
            collectionView.prefetchDataSource = prefetcher
            collectionView.delegate = observer
            source.collectionView = collectionView
            surface = .grid(collectionView, source)
            view = collectionView
        case .table(let tableView):
            let source = ListDataSource(models: backend.models, filler: filler)
            tableView.register(ListCell.self, forCellReuseIdentifier: ListCell.identifier)
            tableView.dataSource = source
            tableView.prefetchDataSource = prefetcher
            tableView.delegate = observer
            source.tableView = tableView
            surface = .list(tableView, source)
            view = tableView
        }
        view.prefetchPolicy = settings.policy
        view.isPrefetchingEnabled = settings.prefetching
    }

    package var models: ModelList { backend.models }
    package var fetcher: AsyncFetcher<UUID, DisplayData> { backend.fetcher }
    package var meter: ReadinessMeter { backend.meter }

    /// Steps the view to `time` after telling its policy the fetcher's latency estimate, then
    /// withdraws the consumers of the cells that went back to the reuse pool.
    package func step(to time: Double) {
        // A jump (scrollToItem) lays out at once: release what that pass pooled, too.
        filler.releasePooledConsumers()
        view.step(to: time)
        filler.releasePooledConsumers()
        filler.prunePlaceholders()
    }

    /// The models of `indexes` arrived (a feed page): fills the cells that showed placeholders.
    package func modelsArrived(_ indexes: Range<Int>) {
        switch surface {
        case .grid(_, let source): source.modelsArrived(indexes)
        case .list(_, let source): source.modelsArrived(indexes)
        }
    }

    /// The items on screen, as a range of item indexes (nil when none).
    package var visibleItems: ClosedRange<Int>? {
        let shown: [Int]
        switch surface {
        case .grid(let collectionView, _): shown = collectionView.indexPathsForVisibleItems.map(\.item)
        case .list(let tableView, _): shown = tableView.indexPathsForVisibleRows.map(\.row)
        }
        return shown.min().flatMap { lo in shown.max().map { lo...$0 } }
    }

    // MARK: What the screen shows

    /// The items whose frames meet `rect` (content coordinates), with their frames.
    package func items(in rect: CGRect) -> [(index: Int, frame: CGRect)] {
        var result: [(Int, CGRect)] = []
        switch surface {
        case .grid(let collectionView, _):
            collectionView.collectionViewLayout.forEachItem(in: rect) { indexPath, frame in result.append((indexPath.item, frame)) }
        case .list(let tableView, _):
            let height = tableView.rowHeight
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

    /// The cell showing `index` now, if any.
    private func cell(at index: Int) -> (any DataCell)? {
        let indexPath = IndexPath(item: index, section: 0)
        switch surface {
        case .grid(let collectionView, _): return collectionView.cellForItem(at: indexPath) as? Cell
        case .list(let tableView, _): return tableView.cellForRow(at: indexPath) as? ListCell
        }
    }

    /// The tiles to draw for the items whose frames meet `rect`: each item's displayed cell's
    /// content, or else what the fetcher has for it.
    package func tiles(in rect: CGRect) -> [Tile] {
        let pending = Set(view.indexPathsPendingPrefetch.map(\.item))
        let board = backend.board
        return items(in: rect).map { index, frame in
            guard let model = models.model(at: index) else {
                // A feed item whose page has not arrived: a placeholder.
                return Tile(index: index, frame: frame, title: "Item \(index) …", state: pending.contains(index) ? .waiting : .blank)
            }
            let state: Tile.State
            if let cell = cell(at: index) {
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
        let readiness = meter.readiness
        return StatusFigures(
            offset: view.contentOffset.y, velocity: view.velocity,
            visible: visibleItems,
            inFlight: stats.inFlight, queued: stats.queued, cached: fetcher.cachedCount,
            displayReadyRate: readiness.displayReadyRate, appearances: readiness.displayed,
            loadsCancelled: stats.loadsCancelled,
            expectedLatencyMs: fetcher.expectedLatency.map { $0.seconds * 1000 })
    }

    /// Plays `script` through the backend (on virtual time over the simulated network, in real
    /// time over a server), then ends the run: the meter's open waits close, the fetcher shuts
    /// down. Returns the summary.
    package func play(_ script: Script, duration: Double?, onFrame: (ScriptedRun.Frame) async throws -> Bool) async throws -> DemoSummary {
        try await backend.play(script, on: self, duration: duration, onFrame: onFrame)
        meter.finish(stillPlanned: view.indexPathsPendingPrefetch.map(\.item))
        let summary = await backend.summary(of: self)
        fetcher.shutdown()
        return summary
    }

    /// The run's summary so far, from the meter.
    package var summary: DemoSummary {
        DemoSummary(meter.readiness)
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
    var expectedLatencyMs: Double?
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }

    /// A duration of `seconds`, to the nanosecond.
    static func seconds(exactly seconds: Double) -> Duration {
        .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
