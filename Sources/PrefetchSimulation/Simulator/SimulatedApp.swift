import Foundation
import PrefetchCollectionView
import PrefetchKit

/// What a simulated load returns: the item's data.
struct SimulatedData: Sendable, Hashable {
    var item: Int
}

/// A cell of the simulated app: the seeds' cell, which remembers the item it represents, the
/// data it shows, and the consumer it holds while its data loads.
@MainActor
protocol SimulatedCell: FetchingCell {
    var representedItem: Int? { get set }
    var data: SimulatedData? { get set }
}

extension SimulatedCell {
    /// The seeds' `prepareForReuse`: withdraw the consumer, forget the item and the data.
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

/// The app side of a simulation: Apple's sample's data source on the real fetcher.
///
/// `cellForItemAt` shows cached data or adds a consumer whose completion hops to the main actor
/// and configures the cell only if it still represents the item; a cell withdraws its consumer
/// when it goes back to the reuse pool. Prefetches and cancels go to the fetcher as the demo's
/// data sources send them: one `fetchAsync` per item for the grid (the seeds' `CustomDataSource`),
/// one `prefetch` batch for the list (the tutorial's table view). In a recording pass (`loop`
/// nil) nothing loads: the app only notes when each item first appears.
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
    }

    func populate(_ cell: some SimulatedCell, item: Int) {
        cells[ObjectIdentifier(cell)] = cell
        cell.representedItem = item
        guard let loop else { return }
        if let data = loop.fetcher.fetchedData(for: item) {
            cell.data = data
            return
        }
        cell.data = nil
        let meter = self.meter
        cell.fetchHandle = loop.fetcher.fetchAsync(item, completion: loop.deliveries.completion(for: item) { result in
            // The seeds' check: a recycled cell ignores another item's data.
            guard cell.representedItem == item else { return }
            cell.fetchHandle = nil
            guard case .success(let data) = result else { return }
            cell.data = data
            if cell.isDisplayed { meter.dataShown(item: item) }
        })
        holders.hold(cell, item: item)
    }

    func prefetchEach(_ items: [Int]) {
        guard let loop else { return }
        for item in items { loop.fetcher.fetchAsync(item) }
    }

    func prefetchBatch(_ items: [Int]) {
        loop?.fetcher.prefetch(items)
    }

    func cancelPrefetching(_ items: [Int]) {
        loop?.fetcher.cancelPrefetching(items)
    }

    func appeared(_ cell: ReusableCell, item: Int) {
        guard loop != nil else {
            appearances.append((now(), item))
            return
        }
        let data = (cell as? any SimulatedCell)?.data
        meter.cellAppeared(item: item, ready: data != nil || loop?.fetcher.fetchedData(for: item) != nil)
    }

    func disappeared(item: Int) {
        meter.cellDisappeared(item: item)
    }

    /// Withdraws the consumers of cells the view has put back in its reuse pool, in item order.
    func releasePooledConsumers() {
        holders.releasePooled()
    }
}

/// The collection view's data source, prefetch data source and delegate.
@MainActor
final class SimulatedGridSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching, CollectionViewDelegate {
    let app: SimulatedApp
    init(app: SimulatedApp) { self.app = app }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { app.itemCount }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: SimulatedGridCell.reuseIdentifier, for: indexPath) as? SimulatedGridCell else {
            preconditionFailure("expected a SimulatedGridCell for \(SimulatedGridCell.reuseIdentifier)")
        }
        app.populate(cell, item: indexPath.item)
        return cell
    }

    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        app.prefetchEach(indexPaths.map(\.item))
    }

    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        app.cancelPrefetching(indexPaths.map(\.item))
    }

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.appeared(cell, item: indexPath.item)
    }

    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        app.disappeared(item: indexPath.item)
    }
}

/// The table view's data source, prefetch data source and delegate.
@MainActor
final class SimulatedListSource: TableViewDataSource, TableViewDataSourcePrefetching, TableViewDelegate {
    let app: SimulatedApp
    init(app: SimulatedApp) { self.app = app }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { app.itemCount }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        guard let cell = tableView.dequeueReusableCell(withIdentifier: SimulatedListCell.reuseIdentifier, for: indexPath) as? SimulatedListCell else {
            preconditionFailure("expected a SimulatedListCell for \(SimulatedListCell.reuseIdentifier)")
        }
        app.populate(cell, item: indexPath.row)
        return cell
    }

    func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) {
        app.prefetchBatch(indexPaths.map(\.row))
    }

    func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {
        app.cancelPrefetching(indexPaths.map(\.row))
    }

    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.appeared(cell, item: indexPath.row)
    }

    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        app.disappeared(item: indexPath.row)
    }
}
