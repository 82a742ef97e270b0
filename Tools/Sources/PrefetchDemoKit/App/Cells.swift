import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// A cell that shows one item's ``DisplayData`` once it arrives, blank until then.
@MainActor
package protocol DataCell: FetchingCell {
    /// The item the cell was last configured for: the check of Apple's sample against recycled
    /// cells.
    var representedIdentifier: UUID? { get set }
    /// The data shown, or nil while blank.
    var data: DisplayData? { get }
    /// Shows `data`, or clears the cell for nil (`configure(with:)` in Apple's sample).
    func configure(with data: DisplayData?)
}

/// The grid's cell: the `Cell` of Apple's sample, whose background turns to the item's colour when
/// its data arrives.
@MainActor
package final class Cell: CollectionViewCell, DataCell {
    package static let reuseIdentifier = "Cell"
    package var representedIdentifier: UUID?
    package private(set) var data: DisplayData?
    package var fetchHandle: FetchHandle?

    package required init() { super.init() }

    package func configure(with data: DisplayData?) {
        self.data = data
    }

    package override func prepareForReuse() {
        super.prepareForReuse()
        // Release this cell's consumer: the load goes on only if someone else still wants it.
        fetchHandle?.cancel()
        fetchHandle = nil
        representedIdentifier = nil
        configure(with: nil)
    }
}

/// The list's cell: the tutorial's `CustomTableViewCell`, a title and a thumbnail.
@MainActor
package final class ListCell: TableViewCell, DataCell {
    package static let identifier = "CustomCell"
    package var representedIdentifier: UUID?
    package private(set) var data: DisplayData?
    package var fetchHandle: FetchHandle?
    /// The row's title, known without loading.
    package var title = ""

    package required init() { super.init() }

    package func configure(with data: DisplayData?) {
        self.data = data
    }

    package override func prepareForReuse() {
        super.prepareForReuse()
        fetchHandle?.cancel()
        fetchHandle = nil
        representedIdentifier = nil
        title = ""
        configure(with: nil)
    }
}
