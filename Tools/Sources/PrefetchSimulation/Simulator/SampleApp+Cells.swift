import Foundation
import PrefetchCollectionView
import PrefetchKit

/// The app's cells: what each shows, the loads they ask for, and what the meter hears when they
/// come on screen and leave it.
extension SampleApp {
    /// What the view's cell for the item at view index `item` shows, if the view holds one.
    public func content(at item: Int) -> SampleCellContent<ID, Value>? {
        (surface.cell(at: IndexPath(indexes: [0, item])) as? any SampleCell<ID, Value>)?.content
    }

    /// Fills the cells showing placeholders whose identifiers are known now (a page arrived),
    /// ending the blank wait of those whose data was cached.
    public func fillPlaceholders() {
        listRowsChanged()
        for (item, cell) in placeholders.sorted(by: { $0.key < $1.key }) where identifier(item) != nil {
            placeholders[item] = nil
            guard cell.indexPath?.last.map(itemNumber) == item, cell.content.identifier == nil else { continue }
            populate(cell, item: item, priority: priority(at: IndexPath(indexes: [0, item - indexBase])))
            if cell.isDisplayed, cell.content.data != nil {
                if cell.content.isPreview { meter.previewShown(item: item) } else { meter.dataShown(item: item) }
            }
        }
    }

    func populate(_ cell: any SampleCell<ID, Value>, item: Int, priority: FetchPriority) {
        let content = cell.content
        cells[ObjectIdentifier(cell)] = cell
        content.item = item
        content.loadFailed = false
        guard let id = identifier(item) else {
            (content.identifier, content.data) = (nil, nil)
            placeholders[item] = cell
            return
        }
        content.identifier = id
        // Check whether the fetcher has already fetched data for the identifier.
        if let data = fetcher.fetchedData(for: id) {
            content.data = data
            // A preview shows at once; the full value is asked for below.
            content.isPreview = previewPlan != nil && fetcher.fetchedData(for: id, atLeast: .full) == nil
            if !content.isPreview { return }
        } else {
            // There is no data available; clear the cell until the fetched data arrives.
            (content.data, content.isPreview) = (nil, false)
        }
        let meter = self.meter
        let completion: @Sendable (Result<Value, any Error>) -> Void = deliveries.completion(for: id) { result in
            // Before updating the cell, check whether the view has recycled it for other data.
            guard content.identifier == id else { return }
            content.fetchHandle = nil
            guard case .success(let data) = result else {
                content.loadFailed = true
                return
            }
            (content.data, content.isPreview) = (data, false)
            if cell.isDisplayed { meter.dataShown(item: item) }
        }
        let priority = fixedPriority ?? priority
        if previewPlan == nil {
            content.fetchHandle = fetcher.fetchAsync(id, priority: priority, completion: completion)
        } else {
            // A preview arriving on the way fills a blank cell; the full value replaces it.
            let preview: @Sendable (Value) -> Void = deliveries.preview(for: id) { (value: Value) in
                guard content.identifier == id, content.data == nil else { return }
                (content.data, content.isPreview) = (value, true)
                if cell.isDisplayed { meter.previewShown(item: item) }
            }
            content.fetchHandle = fetcher.fetchAsync(id, priority: priority, quality: .full, preview: preview, completion: completion)
        }
        if content.fetchHandle != nil { holders[ObjectIdentifier(cell)] = (cell, item) }
    }

    /// A cell came on screen: measured, then, if it holds neither its data nor a consumer (it
    /// left the screen before its data came, or its load failed, and is back), asked for its data again.
    func appeared(_ cell: ReusableCell, item: Int, priority: @autoclosure () -> FetchPriority) {
        onAppear?(item)
        let content = (cell as? any SampleCell<ID, Value>)?.content
        let id = identifier(item)
        if let listFeed, rowHeights != nil, let id, let extent = surface.cellExtent(at: IndexPath(indexes: [0, item - indexBase]), along: .vertical) {
            // A SwiftUI row reports its height once built (`onGeometryChange`), never before.
            listFeed.rowCameOnScreen(id: id, number: item, length: extent.upperBound - extent.lowerBound)
        }
        if previewPlan == nil {
            meter.cellAppeared(item: item, ready: content?.data != nil || id.flatMap(fetcher.fetchedData) != nil)
        } else {
            let full = (content?.data != nil && content?.isPreview == false) || id.flatMap { fetcher.fetchedData(for: $0, atLeast: .full) } != nil
            let something = content?.data != nil || id.flatMap(fetcher.fetchedData) != nil
            meter.cellAppeared(item: item, ready: full, preview: something && !full)
        }
        if let cell = cell as? any SampleCell<ID, Value>, let id, cell.content.identifier == id,
           cell.content.data == nil || cell.content.isPreview, cell.content.fetchHandle == nil {
            populate(cell, item: item, priority: priority())
        }
    }

    /// A cell left the screen: its consumer is withdrawn (the view may keep the cell a while
    /// before reusing it; the load goes on only if the controller still plans the item).
    func disappeared(_ cell: ReusableCell, item: Int) {
        meter.cellDisappeared(item: item)
        guard let content = (cell as? any SampleCell<ID, Value>)?.content else { return }
        content.fetchHandle?.cancel()
        content.fetchHandle = nil
    }

    /// Withdraws the consumers of cells in the reuse pool, in item order, and forgets cells
    /// whose consumer has heard.
    func releasePooledConsumers() {
        let pooled = holders.filter { $0.value.cell.indexPath == nil || $0.value.cell.content.fetchHandle == nil }
            .sorted { $0.value.item < $1.value.item }
        for (key, holder) in pooled {
            holders[key] = nil
            holder.cell.content.fetchHandle?.cancel()
            holder.cell.content.fetchHandle = nil
        }
    }
}
