import Foundation
import PrefetchCollectionView
import PrefetchKit

/// A grid cell that remembers what it shows.
@MainActor
final class SimulatedGridCell: CollectionViewCell {
    static let reuseIdentifier = "SimulatedGridCell"
    let slot = CellSlot()
    override func prepareForReuse() { slot.prepareForReuse() }
}

/// A list cell that remembers what it shows.
@MainActor
final class SimulatedListCell: TableViewCell {
    static let reuseIdentifier = "SimulatedListCell"
    let slot = CellSlot()
    override func prepareForReuse() { slot.prepareForReuse() }
}

/// The collection view's data source, prefetch data source and delegate, forwarding to the core.
@MainActor
final class GridAdapter: CollectionViewDataSource, CollectionViewDataSourcePrioritizedPrefetching, CollectionViewDelegate {
    let core: SimulationCore
    init(core: SimulationCore) { self.core = core }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int { core.itemCount }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        let cell = collectionView.dequeueReusableCell(withReuseIdentifier: SimulatedGridCell.reuseIdentifier, for: indexPath)
        guard let simulated = cell as? SimulatedGridCell else {
            preconditionFailure("expected SimulatedGridCell for \(SimulatedGridCell.reuseIdentifier), got \(type(of: cell))")
        }
        core.cellRequested(item: indexPath.item, slot: simulated.slot, priority: collectionView.fetchPriority(forItemAt: indexPath))
        return simulated
    }

    func collectionView(_ collectionView: CollectionView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        core.updatePrefetching(update)
    }

    var expectedLatency: Duration? { core.latencySummary.expected }
    var typicalLatency: Duration? { core.latencySummary.expected == nil ? nil : core.latencySummary.median }
    var maxConcurrentLoads: Int { core.configuration.maxConcurrentLoads }

    func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        core.willDisplay(item: indexPath.item)
    }

    func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        guard let simulated = cell as? SimulatedGridCell else { return }
        core.didEndDisplaying(item: indexPath.item, slot: simulated.slot)
    }
}

/// The table view's data source, prefetch data source and delegate, forwarding to the core.
@MainActor
final class ListAdapter: TableViewDataSource, TableViewDataSourcePrioritizedPrefetching, TableViewDelegate {
    let core: SimulationCore
    init(core: SimulationCore) { self.core = core }

    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { core.itemCount }

    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: SimulatedListCell.reuseIdentifier, for: indexPath)
        guard let simulated = cell as? SimulatedListCell else {
            preconditionFailure("expected SimulatedListCell for \(SimulatedListCell.reuseIdentifier), got \(type(of: cell))")
        }
        core.cellRequested(item: indexPath.row, slot: simulated.slot, priority: tableView.fetchPriority(forRowAt: indexPath))
        return simulated
    }

    func tableView(_ tableView: TableView, updatePrefetching update: PrefetchUpdate<IndexPath>) {
        core.updatePrefetching(update)
    }

    var expectedLatency: Duration? { core.latencySummary.expected }
    var typicalLatency: Duration? { core.latencySummary.expected == nil ? nil : core.latencySummary.median }
    var maxConcurrentLoads: Int { core.configuration.maxConcurrentLoads }

    func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        core.willDisplay(item: indexPath.row)
    }

    func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        guard let simulated = cell as? SimulatedListCell else { return }
        core.didEndDisplaying(item: indexPath.row, slot: simulated.slot)
    }
}
