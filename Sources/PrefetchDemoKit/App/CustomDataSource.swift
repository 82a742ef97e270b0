import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Fills cells the seeds' way, shared by the grid's and the list's data sources.
///
/// `cellForItemAt` checks the fetcher's cache; on a miss it clears the cell and adds a consumer
/// with a completion that hops to the main actor (through the backend's deliveries, which a
/// virtual-time driver waits for) and configures the cell only if it still represents the same
/// identifier. The consumer's handle is kept on the cell, which withdraws it when it is reused.
@MainActor
package final class CellFiller {
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>
    let deliveries: MainActorDeliveries<UUID>
    let meter: ReadinessMeter
    /// Cells holding a consumer, with the item they hold it for.
    private let holders = PooledConsumers()
    /// Cells showing a placeholder because their item's page had not arrived, by item.
    private var placeholders: [Int: any DataCell] = [:]

    init(asyncFetcher: AsyncFetcher<UUID, DisplayData>, deliveries: MainActorDeliveries<UUID>, meter: ReadinessMeter) {
        self.asyncFetcher = asyncFetcher
        self.deliveries = deliveries
        self.meter = meter
    }

    func populate(_ cell: some DataCell, with model: Model) {
        let identifier = model.identifier
        cell.representedIdentifier = identifier

        // Check if the `asyncFetcher` has already fetched data for the specified identifier.
        if let fetchedData = asyncFetcher.fetchedData(for: identifier) {
            // The data is cached: use it to configure the cell.
            cell.configure(with: fetchedData)
            return
        }
        // There is no data available; clear the cell until the fetched data arrives.
        cell.configure(with: nil)

        // Ask the `asyncFetcher` to fetch data for the specified identifier.
        cell.fetchHandle = asyncFetcher.fetchAsync(identifier, completion: deliveries.completion(for: identifier) { [weak self] result in
            self?.delivered(result, for: identifier, to: cell)
        })
        holders.hold(cell, item: model.index)
    }

    /// Withdraws the consumers of cells the view has put back in its reuse pool, in item order.
    func releasePooledConsumers() {
        holders.releasePooled()
    }

    private func delivered(_ result: Result<DisplayData, any Error>, for identifier: UUID, to cell: some DataCell) {
        // Before updating the cell, check whether the view has recycled it to represent other data.
        guard cell.representedIdentifier == identifier else { return }
        // The consumer has heard: there is nothing left to withdraw.
        cell.fetchHandle = nil
        guard case .success(let data) = result else { return }
        cell.configure(with: data)
        if cell.isDisplayed, let item = cell.indexPath?.last { meter.dataShown(item: item) }
    }

    // MARK: Paged lists

    /// Fills `cell` for the item at `index` of `list`, or shows a placeholder (no data, no
    /// load) while the item's page has not arrived. Returns the model when there is one.
    @discardableResult
    func populate(_ cell: some DataCell, at index: Int, in list: ModelList) -> Model? {
        guard let model = list.model(at: index) else {
            cell.representedIdentifier = nil
            cell.configure(with: nil)
            placeholders[index] = cell
            return nil
        }
        populate(cell, with: model)
        return model
    }

    /// The cell still showing a placeholder for `index`, taken off the placeholder list.
    func takePlaceholder(for index: Int) -> (any DataCell)? {
        guard let cell = placeholders.removeValue(forKey: index),
              cell.indexPath?.last == index, cell.representedIdentifier == nil else { return nil }
        return cell
    }

    /// Fills a placeholder cell now that its item's model is here, and ends its wait on screen
    /// when the data was cached.
    func refill(_ cell: some DataCell, with model: Model) {
        populate(cell, with: model)
        if cell.isDisplayed, cell.data != nil { meter.dataShown(item: model.index) }
    }

    /// Forgets placeholders whose cells went on to other items (or to the reuse pool).
    func prunePlaceholders() {
        guard !placeholders.isEmpty else { return }
        placeholders = placeholders.filter { index, cell in cell.indexPath?.last == index && cell.representedIdentifier == nil }
    }
}

/// A data source whose model list may arrive page by page.
@MainActor
package protocol PagedDataSource: AnyObject {
    /// The models of `indexes` arrived: fill the placeholder cells and start the prefetches the
    /// view asked for (`pendingPrefetch`, item indexes) before the models were known.
    func modelsArrived(_ indexes: Range<Int>, pendingPrefetch: Set<Int>)
}

/// The seeds' `CustomDataSource`: the collection view's data source and prefetch data source.
@MainActor
package final class CustomDataSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching, PagedDataSource {
    let models: ModelList
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>
    let filler: CellFiller
    /// Items sent to `cancelPrefetchingForItemsAt`.
    private(set) var prefetchCancels = 0

    init(models: ModelList, filler: CellFiller) {
        self.models = models
        self.asyncFetcher = filler.asyncFetcher
        self.filler = filler
    }

    package func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        models.count
    }

    package func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath) as? Cell else {
            fatalError("Expected `\(Cell.self)` type for reuseIdentifier \(Cell.reuseIdentifier).")
        }
        filler.populate(cell, at: indexPath.row, in: models)
        return cell
    }

    package func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        // Begin asynchronously fetching data for the requested index paths.
        // (An item whose page has not arrived starts when it does: see `modelsArrived`.)
        for indexPath in indexPaths {
            guard let model = models.model(at: indexPath.row) else { continue }
            asyncFetcher.fetchAsync(model.identifier)
        }
    }

    package func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        // Cancel any in-flight requests for data for the specified index paths.
        for indexPath in indexPaths {
            asyncFetcher.cancelFetch(models.identifier(at: indexPath.row))
        }
        prefetchCancels += indexPaths.count
    }

    package func modelsArrived(_ indexes: Range<Int>, pendingPrefetch: Set<Int>) {
        for index in indexes {
            guard let model = models.model(at: index) else { continue }
            if let cell = filler.takePlaceholder(for: index) { filler.refill(cell, with: model) }
            if pendingPrefetch.contains(index) { asyncFetcher.fetchAsync(model.identifier) }
        }
    }
}

/// The tutorial's table view data source: a title per row at once, the thumbnail when it loads.
@MainActor
package final class ListDataSource: TableViewDataSource, TableViewDataSourcePrefetching, PagedDataSource {
    let models: ModelList
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>
    let filler: CellFiller
    /// Rows sent to `cancelPrefetchingForRowsAt`.
    private(set) var prefetchCancels = 0

    init(models: ModelList, filler: CellFiller) {
        self.models = models
        self.asyncFetcher = filler.asyncFetcher
        self.filler = filler
    }

    package func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        models.count
    }

    package func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        guard let cell = tableView.dequeueReusableCell(withIdentifier: ListCell.identifier, for: indexPath) as? ListCell else {
            fatalError("Expected `\(ListCell.self)` type for reuseIdentifier \(ListCell.identifier).")
        }
        let model = filler.populate(cell, at: indexPath.row, in: models)
        cell.title = model?.title ?? ""
        return cell
    }

    package func tableView(_ tableView: TableView, prefetchRowsAt indexPaths: [IndexPath]) {
        // Nearest first: the fetcher starts them in this order. (A row whose page has not
        // arrived starts when it does: see `modelsArrived`.)
        asyncFetcher.prefetch(indexPaths.compactMap { models.model(at: $0.row)?.identifier })
    }

    package func tableView(_ tableView: TableView, cancelPrefetchingForRowsAt indexPaths: [IndexPath]) {
        asyncFetcher.cancelPrefetching(indexPaths.map { models.identifier(at: $0.row) })
        prefetchCancels += indexPaths.count
    }

    package func modelsArrived(_ indexes: Range<Int>, pendingPrefetch: Set<Int>) {
        var prefetch: [UUID] = []
        for index in indexes {
            guard let model = models.model(at: index) else { continue }
            if let cell = filler.takePlaceholder(for: index) as? ListCell {
                cell.title = model.title
                filler.refill(cell, with: model)
            }
            if pendingPrefetch.contains(index) { prefetch.append(model.identifier) }
        }
        asyncFetcher.prefetch(prefetch)
    }
}

/// Tells the meter when cells come on and leave the screen, for both layouts.
@MainActor
package final class AppearanceObserver: CollectionViewDelegate, TableViewDelegate {
    let meter: ReadinessMeter
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>

    init(meter: ReadinessMeter, asyncFetcher: AsyncFetcher<UUID, DisplayData>) {
        self.meter = meter
        self.asyncFetcher = asyncFetcher
    }

    private func appeared(_ cell: ReusableCell, item: Int) {
        guard let cell = cell as? any DataCell else { return }
        let ready = cell.data != nil || cell.representedIdentifier.flatMap { asyncFetcher.fetchedData(for: $0) } != nil
        meter.cellAppeared(item: item, ready: ready)
    }

    package func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        appeared(cell, item: indexPath.item)
    }

    package func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        meter.cellDisappeared(item: indexPath.item)
    }

    package func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        appeared(cell, item: indexPath.row)
    }

    package func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        meter.cellDisappeared(item: indexPath.row)
    }
}
