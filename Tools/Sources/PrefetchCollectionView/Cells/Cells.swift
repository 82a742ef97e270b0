import Foundation

/// The common base of ``CollectionViewCell`` and ``TableViewCell``: a reusable view that a
/// view hands out from its reuse pool.
///
/// Subclass ``CollectionViewCell`` or ``TableViewCell`` rather than this class.
/// A subclass must be creatable with `init()`: give stored properties default values, as the
/// `Cell` of Apple's sample does with `var representedIdentifier: UUID?`.
@MainActor
open class ReusableCell {
    /// Where a cell is in its life.
    enum State: Equatable {
        /// Created, never handed out.
        case new
        /// Returned by `dequeueReusableCell`, not yet returned from the data source.
        case dequeued
        /// Held by the view for an item (prepared or displayed).
        case inUse
        /// In the reuse pool.
        case pooled
    }

    /// The identifier the cell was registered and dequeued with.
    public internal(set) var reuseIdentifier: String?

    /// The cell's frame in content coordinates, set by the view before the cell is displayed.
    public internal(set) var frame: CGRect = .zero

    /// The item the view holds this cell for, or nil while the cell is in the reuse pool.
    public internal(set) var indexPath: IndexPath?

    /// Whether the cell is on screen now (between `willDisplay` and `didEndDisplaying`).
    public internal(set) var isDisplayed = false

    var state: State = .new
    weak var owner: ItemScrollView?

    /// Creates a cell. The view calls this when its reuse pool has no cell for an identifier.
    public required init() {}

    /// Resets the cell before the view hands it out again for another item.
    ///
    /// Called by `dequeueReusableCell(withReuseIdentifier:for:)` when it returns a recycled cell,
    /// never for a new one. Override it to clear state that belongs to the previous item; call
    /// `super.prepareForReuse()`.
    open func prepareForReuse() {}
}

/// A cell of a ``CollectionView``, like `UICollectionViewCell`.
///
/// ```swift
/// final class Cell: CollectionViewCell {
///     static let reuseIdentifier = "Cell"
///     var representedIdentifier: UUID?
///     var color: String?
///     func configure(with data: DisplayData?) { color = data?.color }
/// }
/// collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
/// ```
@MainActor
open class CollectionViewCell: ReusableCell {}

/// A cell of a ``TableView``, like `UITableViewCell`.
@MainActor
open class TableViewCell: ReusableCell {
    /// The height the cell's content needs, in points, as Auto Layout would compute it for a
    /// `UITableViewCell`: set it in `cellForRowAt`. A self-sizing table
    /// (``TableView/estimatedRowHeight`` above 0) gives the row this height the first time it
    /// lays the row out on screen; nil means the table's ``TableView/rowHeight``.
    public var fittingHeight: Double?

    /// Clears ``fittingHeight``, then does what every cell does before reuse.
    open override func prepareForReuse() {
        fittingHeight = nil
        super.prepareForReuse()
    }
}

/// Cells waiting for reuse, by reuse identifier.
@MainActor
struct ReusePool {
    private var cells: [String: [ReusableCell]] = [:]
    private(set) var count = 0

    mutating func dequeue(_ identifier: String) -> ReusableCell? {
        guard let cell = cells[identifier]?.popLast() else { return nil }
        count -= 1
        return cell
    }

    mutating func enqueue(_ cell: ReusableCell) {
        cells[cell.reuseIdentifier ?? "", default: []].append(cell)
        count += 1
    }

    var all: [ReusableCell] { cells.values.flatMap { $0 } }
}
