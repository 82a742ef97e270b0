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
    /// Models that arrived above the first (``prepend(_:)``): the model numbered `-k` is `above[k - 1]`.
    private var above: [Model] = []
    /// The number of items the list started with.
    private let initialCount: Int
    /// The number of items the view shows, those that arrived above included.
    package var count: Int { initialCount + above.count }

    /// A list of every model at once.
    package init(models: [Model]) {
        storage = .all(models)
        initialCount = models.count
    }

    /// A paged list of `count` items, `pageSize` per page, with no page yet.
    package init(count: Int, pageSize: Int) {
        precondition(pageSize >= 1, "pageSize must be at least 1")
        storage = .paged(pageSize: pageSize, pages: [:])
        initialCount = count
    }

    /// Adds `models` above the first (a feed's new posts), the first of them nearest it: they take
    /// the numbers below the lowest, one after another, as `SampleApp.insertAbove(count:)` gives them.
    package func prepend(_ models: [Model]) {
        above.append(contentsOf: models)
    }

    /// The lowest model number: 0, or below after ``prepend(_:)``.
    package var lowestNumber: Int { -above.count }

    /// The model numbered `index` (its index in the list the view started with; negative for
    /// those that arrived above since), or nil while its page is not here.
    /// - Complexity: O(1)
    package func model(at index: Int) -> Model? {
        if index < 0 { return -index <= above.count ? above[-index - 1] : nil }
        guard index < initialCount else { return nil }
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
        case .all(let models) where index >= 0: models[index].identifier
        case .all: model(at: index)?.identifier ?? Model.feedIdentifier(index)
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
