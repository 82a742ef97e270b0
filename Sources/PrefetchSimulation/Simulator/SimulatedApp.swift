import Foundation
import PrefetchCollectionView
import PrefetchKit
#if canImport(UIKit)
import UIKit  // `IndexPath.item`: UIKit's on iOS (PrefetchCollectionView declares it where there is no UIKit)
#endif

/// What a simulated load returns: the item's data.
struct SimulatedData: Sendable, Hashable {
    var item: Int
}

/// A cell of the simulated app: the cell of Apple's sample, which remembers the item it represents,
/// the data it shows, and the consumer it holds while its data loads.
@MainActor
protocol SimulatedCell: FetchingCell {
    var representedItem: Int? { get set }
    var data: SimulatedData? { get set }
}

extension SimulatedCell {
    /// The `prepareForReuse` of Apple's sample: withdraw the consumer, forget the item and the data.
    func reset() {
        fetchHandle?.cancel()
        fetchHandle = nil
        representedItem = nil
        data = nil
    }
}

/// The simulated grid's cell.
@MainActor
final class SimulatedGridCell: CollectionViewCell, SimulatedCell {
    static let reuseIdentifier = "SimulatedGridCell"
    var representedItem: Int?
    var data: SimulatedData?
    var fetchHandle: FetchHandle?
    override func prepareForReuse() { reset() }
}

/// The simulated list's cell.
@MainActor
final class SimulatedListCell: TableViewCell, SimulatedCell {
    static let reuseIdentifier = "SimulatedListCell"
    var representedItem: Int?
    var data: SimulatedData?
    var fetchHandle: FetchHandle?
    override func prepareForReuse() { reset() }
}

/// The app side of a simulation: Apple's sample's data source on the real fetcher, through the
/// view's controller.
///
/// `cellForItemAt` shows cached data or adds a consumer, at the priority the view's controller
/// gives the item (`fetchPriority(forItemAt:)`), whose completion hops to the main actor and
/// configures the cell only if it still represents the item; a cell withdraws its consumer when it
/// leaves the screen (and asks again if it comes back without its data) or goes back to the reuse
/// pool. The fetcher's own prefetch data source
/// (`AsyncFetcher.prefetchDataSource(identifier:)`) takes the controller's decisions: what to
/// prefetch, at which priority, and what to withdraw. The demo's data sources do the same. In a
/// recording pass (`loop` nil) nothing loads: the app only notes when each item first appears.
@MainActor
final class SimulatedApp {
    typealias Loop = VirtualTimeLoop<Int, SimulatedData>

    let loop: Loop?
    let meter: ReadinessMeter
    let itemCount: Int
    private let holders = PooledConsumers()
    /// Every cell the data source has configured, for tests to inspect.
    private(set) var cells: [ObjectIdentifier: any SimulatedCell] = [:]
    /// When each item appeared, in a recording pass.
    private(set) var appearances: [(time: Double, item: Int)] = []
    private var now: () -> Double

    init(loop: Loop?, meter: ReadinessMeter, itemCount: Int, now: @escaping () -> Double) {
        self.loop = loop
        self.meter = meter
        self.itemCount = itemCount
        self.now = now
        prefetcher = loop.map { SimulatedPrefetcher($0.fetcher.prefetchDataSource { $0.item }) }
    }

    /// The fetcher's prefetch data source, which the view's controller drives (nil when recording).
    let prefetcher: SimulatedPrefetcher?

    func populate(_ cell: some SimulatedCell, item: Int, priority: FetchPriority) {
        cells[ObjectIdentifier(cell)] = cell
        cell.representedItem = item
        guard let loop else { return }
        if let data = loop.fetcher.fetchedData(for: item) {
            cell.data = data
            return
        }
        cell.data = nil
        let meter = self.meter
        cell.fetchHandle = loop.fetcher.fetchAsync(item, priority: priority, completion: loop.deliveries.completion(for: item) { result in
            // The check of Apple's sample: a recycled cell ignores another item's data.
            guard cell.representedItem == item else { return }
            cell.fetchHandle = nil
            guard case .success(let data) = result else { return }
            cell.data = data
            if cell.isDisplayed { meter.dataShown(item: item) }
        })
        holders.hold(cell, item: item)
    }

    /// A cell came on screen: measured, then, if it holds neither its data nor a consumer (it
    /// left the screen before its data came and is back), asked for its data again.
    func appeared(_ cell: ReusableCell, item: Int, priority: @autoclosure () -> FetchPriority) {
        guard loop != nil else {
            appearances.append((now(), item))
            return
        }
        let simulated = cell as? any SimulatedCell
        meter.cellAppeared(item: item, ready: simulated?.data != nil || loop?.fetcher.fetchedData(for: item) != nil)
        if let simulated, simulated.representedItem == item, simulated.data == nil, simulated.fetchHandle == nil {
            populate(simulated, item: item, priority: priority())
        }
    }

    /// A cell left the screen: it no longer needs its data, so its consumer is withdrawn (the
    /// view may keep the cell a while before reusing it; the load goes on only if the controller
    /// still plans the item).
    func disappeared(_ cell: ReusableCell, item: Int) {
        meter.cellDisappeared(item: item)
        guard let simulated = cell as? any SimulatedCell else { return }
        simulated.fetchHandle?.cancel()
        simulated.fetchHandle = nil
    }

    /// Withdraws the consumers of cells the view has put back in its reuse pool, in item order.
    func releasePooledConsumers() {
        holders.releasePooled()
    }
}

/// The collection view's data source and delegate.
@MainActor
final class SimulatedGridSource: CollectionViewDataSource, CollectionViewDelegate {
    let app: SimulatedApp
    init(app: SimulatedApp) { self.app = app }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { app.itemCount }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: SimulatedGridCell.reuseIdentifier, for: indexPath) as? SimulatedGridCell else {
            preconditionFailure("expected a SimulatedGridCell for \(SimulatedGridCell.reuseIdentifier)")
        }
        app.populate(cell, item: indexPath.item, priority: collectionView.fetchPriority(forItemAt: indexPath))
        return cell
    }

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.appeared(cell, item: indexPath.item, priority: collectionView.fetchPriority(forItemAt: indexPath))
    }

    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.disappeared(cell, item: indexPath.item)
    }
}

/// The table view's data source and delegate.
@MainActor
final class SimulatedListSource: TableViewDataSource, TableViewDelegate {
    let app: SimulatedApp
    init(app: SimulatedApp) { self.app = app }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { app.itemCount }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        guard let cell = tableView.dequeueReusableCell(withIdentifier: SimulatedListCell.reuseIdentifier, for: indexPath) as? SimulatedListCell else {
            preconditionFailure("expected a SimulatedListCell for \(SimulatedListCell.reuseIdentifier)")
        }
        app.populate(cell, item: indexPath.row, priority: tableView.fetchPriority(forRowAt: indexPath))
        return cell
    }

    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.appeared(cell, item: indexPath.row, priority: tableView.fetchPriority(forRowAt: indexPath))
    }

    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.disappeared(cell, item: indexPath.row)
    }
}

/// The fetcher's prefetch data source, and a look at each frame's decisions for tests.
@MainActor
final class SimulatedPrefetcher: CollectionViewDataSourcePrioritizedPrefetching, TableViewDataSourcePrioritizedPrefetching {
    let base: FetcherPrefetchDataSource<Int, SimulatedData>
    /// Sees each update before the fetcher does.
    var onUpdate: ((PrefetchUpdate<IndexPath>) -> Void)?

    init(_ base: FetcherPrefetchDataSource<Int, SimulatedData>) { self.base = base }

    func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        onUpdate?(update)
        base.collectionView(collectionView, updatePrefetching: update)
    }

    func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        onUpdate?(update)
        base.tableView(tableView, updatePrefetching: update)
    }

    var expectedLatency: Duration? { base.expectedLatency }
    var typicalLatency: Duration? { base.typicalLatency }
    var maxConcurrentLoads: Int { base.maxConcurrentLoads }
}
