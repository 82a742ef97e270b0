import Foundation
import PrefetchCollectionView
import PrefetchKit

/// The view a ``SampleApp`` fills: a `CollectionView` (the grid of Apple's sample) or a
/// `TableView` (the tutorial's list), one protocol so no client switches on which.
///
/// Both views conform. A ``ScenarioLayout`` builds the right one with `makeView(viewport:)`.
@MainActor
protocol SampleSurface: ItemScrollView {
    /// Registers the app's cell and makes `app` the view's data source and delegate.
    func install<ID, Value>(_ app: SampleCallbacks<ID, Value>)
    /// The priority the view's controller gives the item now (`fetchPriority(forItemAt:)`).
    func priority(forItemAt indexPath: IndexPath) -> FetchPriority
    /// The items on screen, in order.
    var visibleIndexPaths: [IndexPath] { get }
    /// The cell the view holds for the item, if any.
    func cell(at indexPath: IndexPath) -> ReusableCell?
    /// Calls `body` with each item whose frame meets `rect` (content coordinates) and the frame.
    func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void)
    /// Inserts items at `indexPaths` (`insertItems(at:)`, `insertRows(at:)`), inside a batch update.
    func insert(_ indexPaths: [IndexPath])
    /// Deletes items at `indexPaths` (`deleteItems(at:)`, `deleteRows(at:)`), inside a batch update.
    func delete(_ indexPaths: [IndexPath])
}

extension CollectionView: SampleSurface {
    /// Registers `SampleGridCell` and wires `app`.
    func install<ID, Value>(_ app: SampleCallbacks<ID, Value>) {
        register(SampleGridCell<ID, Value>.self, forCellWithReuseIdentifier: sampleCellIdentifier)
        dataSource = app
        delegate = app
    }

    func priority(forItemAt indexPath: IndexPath) -> FetchPriority { fetchPriority(forItemAt: indexPath) }
    var visibleIndexPaths: [IndexPath] { indexPathsForVisibleItems }
    func cell(at indexPath: IndexPath) -> ReusableCell? { cellForItem(at: indexPath) }
    func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void) { collectionViewLayout.forEachItem(in: rect, body) }
    func insert(_ indexPaths: [IndexPath]) { insertItems(at: indexPaths) }
    func delete(_ indexPaths: [IndexPath]) { deleteItems(at: indexPaths) }
}

extension TableView: SampleSurface {
    /// Registers `SampleListCell` and wires `app`.
    func install<ID, Value>(_ app: SampleCallbacks<ID, Value>) {
        register(SampleListCell<ID, Value>.self, forCellReuseIdentifier: sampleCellIdentifier)
        dataSource = app
        delegate = app
    }

    func priority(forItemAt indexPath: IndexPath) -> FetchPriority { fetchPriority(forRowAt: indexPath) }
    var visibleIndexPaths: [IndexPath] { indexPathsForVisibleRows }
    func cell(at indexPath: IndexPath) -> ReusableCell? { cellForRow(at: indexPath) }
    func insert(_ indexPaths: [IndexPath]) { insertRows(at: indexPaths) }
    func delete(_ indexPaths: [IndexPath]) { deleteRows(at: indexPaths) }
    /// The rows whose extents meet `rect` vertically, where the view's layout puts them (each at
    /// its own height when the delegate sizes rows), as wide as the view.
    func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void) {
        guard rect.minY.isFinite, rect.maxY.isFinite, rect.height > 0 else { return }
        for (indexPath, extent) in cells(meeting: rect.minY..<rect.maxY, along: .vertical) {
            body(indexPath, CGRect(x: 0, y: extent.lowerBound, width: bounds.width, height: extent.upperBound - extent.lowerBound))
        }
    }
}

/// The reuse identifier of the sample's cells.
let sampleCellIdentifier = "SampleCell"

extension ScenarioLayout {
    /// Builds the view of this layout in a viewport of `viewport`, without a data source: a
    /// `CollectionView` with a `FlowLayout` for a grid, a `TableView` for a list. The simulator
    /// and the demo build their views here, so both scroll the same geometry. A list with
    /// ``rowHeights`` lays its rows out at their heights once a ``SampleApp`` built on it is its
    /// delegate (`heightForRowAt`, by item, as a UIKit app sizes its rows); until then, and for
    /// rows of one height, every row is ``itemHeight`` high.
    /// - Throws: ``SimulationError`` naming a value of the layout or the viewport out of range.
    @MainActor
    func makeView(viewport: Viewport) throws -> any SampleSurface {
        try validate()
        try viewport.validate()
        let frame = CGRect(x: 0, y: 0, width: viewport.width, height: viewport.height)
        switch kind {
        case .grid:
            let inset = ContentInsets(top: sectionInset, left: sectionInset, bottom: sectionInset, right: sectionInset)
            let layout = try FlowLayout(
                itemSize: CGSize(width: itemWidth, height: itemHeight), minimumLineSpacing: spacing, minimumInteritemSpacing: spacing,
                sectionInset: inset)
            return CollectionView(frame: frame, collectionViewLayout: layout)
        case .list:
            let tableView = TableView(frame: frame)
            tableView.rowHeight = itemHeight
            return tableView
        }
    }
}
