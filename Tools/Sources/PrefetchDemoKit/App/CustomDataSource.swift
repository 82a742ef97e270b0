import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Fills cells the way Apple's sample does, shared by the grid's and the list's data sources.
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

    func populate(_ cell: some DataCell, with model: Model, priority: FetchPriority) {
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
        cell.fetchHandle = asyncFetcher.fetchAsync(identifier, priority: priority, completion: deliveries.completion(for: identifier) { [weak self] result in
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
    func populate(_ cell: some DataCell, at index: Int, in list: ModelList, priority: FetchPriority) -> Model? {
        guard let model = list.model(at: index) else {
            cell.representedIdentifier = nil
            cell.configure(with: nil)
            placeholders[index] = cell
            return nil
        }
        populate(cell, with: model, priority: priority)
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
    func refill(_ cell: some DataCell, with model: Model, priority: FetchPriority) {
        populate(cell, with: model, priority: priority)
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
    /// The models of `indexes` arrived: fill the cells that show placeholders for them.
    func modelsArrived(_ indexes: Range<Int>)
}

/// The `CustomDataSource` of Apple's sample: the collection view's data source.
///
/// The sample's class is the prefetch data source too; here the fetcher's own prefetch data source
/// (`AsyncFetcher.prefetchDataSource(identifier:)`) is, so the view's controller decides every
/// prefetch, cancel and priority, and `cellForItemAt` asks the view for the item's priority.
@MainActor
package final class CustomDataSource: CollectionViewDataSource, PagedDataSource {
    let models: ModelList
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>
    let filler: CellFiller
    /// The view, for the priorities of items whose page arrives.
    weak var collectionView: CollectionView?

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
        // The view's controller ranks the item: visible, about to be, or flying past.
        filler.populate(cell, at: indexPath.row, in: models, priority: collectionView.fetchPriority(forItemAt: indexPath))
        return cell
    }

    package func modelsArrived(_ indexes: Range<Int>) {
        guard let collectionView else { return }
        for index in indexes {
            guard let model = models.model(at: index), let cell = filler.takePlaceholder(for: index) else { continue }
            filler.refill(cell, with: model, priority: collectionView.fetchPriority(forItemAt: IndexPath(item: index, section: 0)))
        }
    }
}

/// The tutorial's table view data source: a title per row at once, the thumbnail when it loads
/// (prefetching, as for the grid, is the fetcher's prefetch data source's).
@MainActor
package final class ListDataSource: TableViewDataSource, PagedDataSource {
    let models: ModelList
    let asyncFetcher: AsyncFetcher<UUID, DisplayData>
    let filler: CellFiller
    /// The view, for the priorities of rows whose page arrives.
    weak var tableView: TableView?

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
        let model = filler.populate(cell, at: indexPath.row, in: models, priority: tableView.fetchPriority(forRowAt: indexPath))
        cell.title = model?.title ?? ""
        return cell
    }

    package func modelsArrived(_ indexes: Range<Int>) {
        guard let tableView else { return }
        for index in indexes {
            guard let model = models.model(at: index), let cell = filler.takePlaceholder(for: index) as? ListCell else { continue }
            cell.title = model.title
            filler.refill(cell, with: model, priority: tableView.fetchPriority(forRowAt: IndexPath(item: index, section: 0)))
        }
    }
}

/// The delegate, for both layouts: tells the meter when cells come on and leave the screen, and
/// withdraws the consumer of a cell that left the screen (the view may keep the cell a while
/// before reusing it), asking again if the cell comes back without its data.
@MainActor
package final class AppearanceObserver: CollectionViewDelegate, TableViewDelegate {
    let meter: ReadinessMeter
    let filler: CellFiller
    let models: ModelList

    init(meter: ReadinessMeter, filler: CellFiller, models: ModelList) {
        self.meter = meter
        self.filler = filler
        self.models = models
    }

    private func appeared(_ cell: ReusableCell, item: Int, priority: @autoclosure () -> FetchPriority) {
        guard let cell = cell as? any DataCell else { return }
        let ready = cell.data != nil || cell.representedIdentifier.flatMap { filler.asyncFetcher.fetchedData(for: $0) } != nil
        meter.cellAppeared(item: item, ready: ready)
        if let model = models.model(at: item), cell.representedIdentifier == model.identifier, cell.data == nil, cell.fetchHandle == nil {
            filler.populate(cell, with: model, priority: priority())
        }
    }

    private func disappeared(_ cell: ReusableCell, item: Int) {
        meter.cellDisappeared(item: item)
        guard let cell = cell as? any DataCell else { return }
        cell.fetchHandle?.cancel()
        cell.fetchHandle = nil
    }

    package func collectionView(_ collectionView: CollectionView, willDisplay cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        appeared(cell, item: indexPath.item, priority: collectionView.fetchPriority(forItemAt: indexPath))
    }

    package func collectionView(_ collectionView: CollectionView, didEndDisplaying cell: CollectionViewCell, forItemAt indexPath: IndexPath) {
        disappeared(cell, item: indexPath.item)
    }

    package func tableView(_ tableView: TableView, willDisplay cell: TableViewCell, forRowAt indexPath: IndexPath) {
        appeared(cell, item: indexPath.row, priority: tableView.fetchPriority(forRowAt: indexPath))
    }

    package func tableView(_ tableView: TableView, didEndDisplaying cell: TableViewCell, forRowAt indexPath: IndexPath) {
        disappeared(cell, item: indexPath.row)
    }
}
