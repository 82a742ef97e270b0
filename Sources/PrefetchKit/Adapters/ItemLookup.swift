import Foundation

/// Names the items of a list or grid both ways: the item at an index path, and the index path of
/// an item. What a ``PrefetchController`` plans for is the item; what a view reports is the index path.
///
/// - Diffable data sources: the item identifier
///   (`ItemLookup(item: dataSource.itemIdentifier(for:), indexPath: dataSource.indexPath(for:))`).
///   The ids stay the same across updates, so an item removed mid-scroll has no index path any
///   more and is withdrawn at the next layout.
/// - Plain data sources over an array of ids: ``init(identifiers:section:)``.
/// - Plain data sources by position: ``indexPaths`` (the index path is the item; after a batch
///   update call ``PrefetchController/moveItems(_:)``, after a reload ``PrefetchController/invalidateItems()``).
public struct ItemLookup<Item: Hashable> {
    /// The item at an index path, or `nil` when it names none (stale after an update, out of range).
    public let item: (IndexPath) -> Item?
    /// The index path of an item, or `nil` when the item is gone.
    package let indexPath: (Item) -> IndexPath?

    /// Creates a lookup from its two directions.
    public init(item: @escaping (IndexPath) -> Item?, indexPath: @escaping (Item) -> IndexPath?) {
        self.item = item
        self.indexPath = indexPath
    }
}

extension ItemLookup where Item == IndexPath {
    /// The index path is the item.
    public static var indexPaths: ItemLookup<IndexPath> {
        ItemLookup(item: { $0 }, indexPath: { $0 })
    }
}

extension ItemLookup {
    /// One section of ids, in order: the item at `[section, i]` is `identifiers[i]`. An id that
    /// appears twice is found at its first index path.
    ///
    /// Build a new lookup when the array changes; an id that left it has no index path, and an
    /// index path past its end names no item.
    /// - Complexity: O(n) to build, O(1) per question.
    public init(identifiers: [Item], section: Int = 0) {
        var positions: [Item: Int] = [:]
        positions.reserveCapacity(identifiers.count)
        for (index, id) in identifiers.enumerated() where positions[id] == nil { positions[id] = index }
        self.init(
            item: { path in
                guard path.count == 2, path[0] == section, identifiers.indices.contains(path[1]) else { return nil }
                return identifiers[path[1]]
            },
            indexPath: { id in positions[id].map { IndexPath(indexes: [section, $0]) } })
    }
}

/// A ``ItemGeometry`` over a view's layout: the index paths and frames it reports for a range of
/// the scroll axis, named as items through an ``ItemLookup``.
///
/// The layout's answers are taken as they come (UIKit's `layoutAttributesForElements(in:)` is not
/// sorted and may list an item twice); this type sorts them along the axis, keeps one extent per
/// item, drops empty or non-finite frames, and skips index paths the lookup no longer names (an
/// item removed by an update the layout has not caught up with).
package struct LayoutScrollGeometry<Item: Hashable>: ItemGeometry {
    private let lookup: ItemLookup<Item>
    private let frames: (Range<Double>) -> [(IndexPath, Range<Double>)]
    private let frame: (IndexPath) -> Range<Double>?

    /// Creates a geometry.
    ///
    /// - Parameters:
    ///   - lookup: Names the index paths.
    ///   - frames: The index paths of the cells that lie in a range of the axis, with their
    ///     extents along it (a vertical list: `minY..<maxY`).
    ///   - frame: The extent of the cell at an index path, or `nil` when there is none.
    package init(lookup: ItemLookup<Item>, frames: @escaping (Range<Double>) -> [(IndexPath, Range<Double>)],
                frame: @escaping (IndexPath) -> Range<Double>?) {
        self.lookup = lookup
        self.frames = frames
        self.frame = frame
    }

    /// Calls `body` with each named item that meets `range`, in ascending order along the axis
    /// (by index path where two start at the same point).
    /// - Complexity: O(k log k) for the k frames the layout reports, plus the layout's cost.
    package func forEachItem(meeting range: Range<Double>, _ body: (Item, Range<Double>) -> Void) {
        let found = frames(range).filter { _, extent in
            extent.lowerBound.isFinite && extent.upperBound.isFinite && !extent.isEmpty
                && extent.lowerBound < range.upperBound && range.lowerBound < extent.upperBound
        }.sorted { a, b in a.1.lowerBound != b.1.lowerBound ? a.1.lowerBound < b.1.lowerBound : a.0 < b.0 }
        var seen: Set<Item> = []
        for (path, extent) in found {
            guard let item = lookup.item(path), seen.insert(item).inserted else { continue }
            body(item, extent)
        }
    }

    /// The extent of `item`'s cell, or `nil` when the item has no index path or its frame is empty
    /// or not finite.
    /// - Complexity: The lookup's and the layout's cost for one item.
    package func extent(of item: Item) -> Range<Double>? {
        guard let path = lookup.indexPath(item), let extent = frame(path),
              extent.lowerBound.isFinite, extent.upperBound.isFinite, !extent.isEmpty else { return nil }
        return extent
    }
}

/// A ``ItemGeometry`` for a lazy stack or grid whose cells the toolkit does not report ahead of
/// time (SwiftUI's `LazyVStack` and `LazyVGrid`): `items` in order, `columns` to a row, each row
/// `rowLength` long with `spacing` between rows, after `leadingPadding`.
///
/// The extents only need to be about right: they place the plan, and the frames correct the
/// forecast as the rows appear.
///
/// ```swift
/// let geometry = UniformRowsGeometry(items: ids, rowLength: 88, columns: 1, spacing: 8)
/// geometry.extent(of: ids[3])   // 288..<376
/// ```
public struct UniformRowsGeometry<Item: Hashable>: ItemGeometry {
    /// The items, row by row.
    package let items: [Item]
    /// A row's length along the axis, in points.
    package let rowLength: Double
    /// Items per row, at least 1.
    package let columns: Int
    /// The gap between rows, in points.
    package let spacing: Double
    /// The content before the first row (a header, padding), in points.
    package let leadingPadding: Double
    private let positions: [Item: Int]

    /// Creates a geometry; a `columns` below 1 counts as 1, and negative or non-finite lengths as 0.
    /// - Complexity: O(n) for n items.
    public init(items: [Item], rowLength: Double, columns: Int = 1, spacing: Double = 0, leadingPadding: Double = 0) {
        func length(_ value: Double) -> Double { value.isFinite ? max(0, value) : 0 }
        self.items = items
        self.rowLength = length(rowLength)
        self.columns = max(1, columns)
        self.spacing = length(spacing)
        self.leadingPadding = length(leadingPadding)
        var positions: [Item: Int] = [:]
        positions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() where positions[item] == nil { positions[item] = index }
        self.positions = positions
    }

    /// The length of the whole content: padding, rows and the gaps between them.
    public var contentLength: Double {
        let rows = rowCount
        return rows == 0 ? leadingPadding : leadingPadding + Double(rows) * rowLength + Double(rows - 1) * spacing
    }

    /// The number of rows, without the overflow of `(count + columns - 1) / columns` when
    /// `columns` is near `Int.max`.
    private var rowCount: Int {
        items.count / columns + (items.count % columns == 0 ? 0 : 1)
    }

    /// The extent of a row. Row 0 starts at the padding even when a row and its gap add up to
    /// infinity (0 × ∞ is NaN); later rows may start at infinity then, never at NaN.
    private func extent(ofRow row: Int) -> Range<Double> {
        let start = row == 0 ? leadingPadding : leadingPadding + Double(row) * (rowLength + spacing)
        return start..<(start + rowLength)
    }

    /// The row that `position` falls in, rounded by `rule` and clamped to the rows, converted to
    /// `Int` only once it is in range: a tiny row length or a far-away position gives a quotient
    /// past `Int.max`. A NaN quotient (an infinite position over an infinite pitch) gives `unknown`.
    private func row(at position: Double, pitch: Double, rows: Int, _ rule: FloatingPointRoundingRule, unknown: Int) -> Int {
        let row = ((position - leadingPadding) / pitch).rounded(rule)
        guard !row.isNaN else { return unknown }
        return Int(Swift.min(Swift.max(row, 0), Double(rows - 1)))
    }

    /// Calls `body` with each item whose row meets `range`, row by row.
    /// - Complexity: O(k) for k items in the range.
    public func forEachItem(meeting range: Range<Double>, _ body: (Item, Range<Double>) -> Void) {
        guard !items.isEmpty, rowLength > 0, range.lowerBound.isFinite, range.upperBound.isFinite else { return }
        let pitch = rowLength + spacing
        let rows = rowCount
        let first = row(at: range.lowerBound, pitch: pitch, rows: rows, .down, unknown: 0)
        let last = row(at: range.upperBound, pitch: pitch, rows: rows, .up, unknown: rows - 1)
        guard first <= last else { return }
        for row in first...last {
            let extent = extent(ofRow: row)
            guard extent.lowerBound < range.upperBound, range.lowerBound < extent.upperBound else { continue }
            for index in (row * columns)..<min(items.count, (row + 1) * columns) where positions[items[index]] == index {
                body(items[index], extent)
            }
        }
    }

    /// The extent of `item`'s row, or `nil` when it is not among the items (or rows have no
    /// length, or the row starts past the largest finite offset).
    /// - Complexity: O(1).
    public func extent(of item: Item) -> Range<Double>? {
        guard rowLength > 0, let index = positions[item] else { return nil }
        let extent = extent(ofRow: index / columns)
        return extent.lowerBound.isFinite ? extent : nil
    }
}
