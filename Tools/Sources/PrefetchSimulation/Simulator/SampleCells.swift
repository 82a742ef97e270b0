import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchUIKit

/// What a cell of Apple's sample holds: the item it represents, the data it shows, and the
/// consumer it holds while that data loads.
@MainActor
public final class SampleCellContent<ID: Hashable & Sendable, Value: Sendable> {
    /// The item the cell was last configured for.
    public internal(set) var item: Int?
    /// The identifier it represents: the check of Apple's sample against recycled cells (nil
    /// while the item's model has not arrived: a placeholder).
    public internal(set) var identifier: ID?
    /// The data shown, or nil while blank.
    public internal(set) var data: Value?
    /// Whether ``data`` is a preview (the full value is on its way).
    public internal(set) var isPreview = false
    /// Whether the load failed after its retries (the cell asks again when it comes back on screen).
    public internal(set) var loadFailed = false
    /// The consumer of an in-flight load.
    var fetchHandle: FetchHandle?

    /// Whether the cell waits for a load now.
    public var isLoading: Bool { fetchHandle != nil }

    nonisolated init() {}

    /// The `prepareForReuse` of Apple's sample: withdraw the consumer, forget the item and the data.
    func reset() {
        fetchHandle?.cancel()
        (fetchHandle, item, identifier, data, loadFailed, isPreview) = (nil, nil, nil, nil, false, false)
    }
}

/// A cell of ``SampleApp``: the grid's `SampleGridCell` or the list's `SampleListCell`.
@MainActor
protocol SampleCell<ID, Value>: ReusableCell {
    /// The identifier type.
    associatedtype ID: Hashable & Sendable
    /// The data type.
    associatedtype Value: Sendable
    /// What the cell shows.
    var content: SampleCellContent<ID, Value> { get }
}

/// The grid's cell: the `Cell` of Apple's sample.
final class SampleGridCell<ID: Hashable & Sendable, Value: Sendable>: CollectionViewCell, SampleCell {
    /// What the cell shows.
    let content = SampleCellContent<ID, Value>()
    /// Withdraws the consumer and clears the cell.
    override func prepareForReuse() {
        super.prepareForReuse()
        content.reset()
    }
}

/// The list's cell: the tutorial's `CustomTableViewCell`.
final class SampleListCell<ID: Hashable & Sendable, Value: Sendable>: TableViewCell, SampleCell {
    /// What the cell shows.
    let content = SampleCellContent<ID, Value>()
    /// Withdraws the consumer and clears the cell.
    override func prepareForReuse() {
        super.prepareForReuse()
        content.reset()
    }
}
