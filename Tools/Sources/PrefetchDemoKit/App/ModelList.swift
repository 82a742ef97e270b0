import Foundation

/// The model list the data sources read: all of it at once (the simulated network's 1,000
/// models), or page by page from a feed.
///
/// A paged list has its final ``count`` from the start (the feed's total, known from its first
/// page), so the view lays out every item and scrolls as it does over the simulated network.
/// An item whose page has not arrived (or was dropped to bound memory) has no model yet: its
/// cell shows a placeholder until ``setPage(_:models:)`` brings the page, and the scene fills
/// the cells and starts the prefetches that were waiting for it.
@MainActor
package final class ModelList {
    private enum Storage {
        case all([Model])
        case paged(pageSize: Int, pages: [Int: [Model]])
    }

    private var storage: Storage
    /// The number of items the view shows.
    package let count: Int

    /// A list of every model at once.
    package init(models: [Model]) {
        storage = .all(models)
        count = models.count
    }

    /// A paged list of `count` items, `pageSize` per page, with no page yet.
    package init(count: Int, pageSize: Int) {
        precondition(pageSize >= 1, "pageSize must be at least 1")
        storage = .paged(pageSize: pageSize, pages: [:])
        self.count = count
    }

    /// The model at `index`, or nil while its page is not here.
    /// - Complexity: O(1)
    package func model(at index: Int) -> Model? {
        guard index >= 0, index < count else { return nil }
        switch storage {
        case .all(let models):
            return models[index]
        case .paged(let size, let pages):
            guard let page = pages[index / size] else { return nil }
            let offset = index % size
            return offset < page.count ? page[offset] : nil
        }
    }

    /// The fetcher's identifier of the item at `index`, known whether or not its page is here.
    /// - Complexity: O(1)
    package func identifier(at index: Int) -> UUID {
        switch storage {
        case .all(let models): models[index].identifier
        case .paged: model(at: index)?.identifier ?? Model.feedIdentifier(index)
        }
    }

    /// The page size of a paged list, nil for a list held whole.
    package var pageSize: Int? {
        if case .paged(let size, _) = storage { return size }
        return nil
    }

    /// The pages held now, sorted (empty for a list held whole).
    package var loadedPages: [Int] {
        if case .paged(_, let pages) = storage { return pages.keys.sorted() }
        return []
    }

    /// Stores page `page`'s models, or drops the page for nil. Does nothing for a list held whole.
    package func setPage(_ page: Int, models: [Model]?) {
        guard case .paged(let size, var pages) = storage else { return }
        pages[page] = models
        storage = .paged(pageSize: size, pages: pages)
    }

    /// The item indexes of page `page`, clipped to the list.
    package func indexes(ofPage page: Int) -> Range<Int> {
        let size = pageSize ?? max(count, 1)
        let start = min(page * size, count)
        return start..<min(start + size, count)
    }
}
