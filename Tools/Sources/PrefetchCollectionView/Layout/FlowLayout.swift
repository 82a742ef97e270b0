import Foundation
import PrefetchKit

/// A grid of equally sized items in rows, like `UICollectionViewFlowLayout` with a vertical
/// scroll direction: as many columns as fit the width, sections stacked top to bottom.
///
/// Each section's item size is `itemSize`, or the size the delegate's
/// `collectionView(_:layout:sizeForItemAt:)` gives for the section's first item: items in a
/// section share one size. Spare width goes between the columns (one column is centred); the
/// last row of a section is left-aligned.
///
/// The layout stores a few numbers per section and nothing per item, so it handles
/// collections of any size: "which items are in this rectangle" costs O(log sections + k).
///
/// ```swift
/// let layout = try FlowLayout(itemSize: CGSize(width: 150, height: 100),
///                             minimumLineSpacing: 10, minimumInteritemSpacing: 10)
/// let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 343, height: 333),
///                                     collectionViewLayout: layout)   // 2 columns
/// ```
@MainActor
public final class FlowLayout: CollectionLayout {
    /// The size of every item, unless the delegate gives one.
    let itemSize: CGSize
    /// The vertical space between rows.
    let minimumLineSpacing: Double
    /// The smallest horizontal space between items in a row.
    let minimumInteritemSpacing: Double
    /// The space around each section's items.
    let sectionInset: ContentInsets

    private struct Section {
        var start: Double
        var end: Double
        var count: Int
        var itemSize: CGSize
        var columns: Int
        var rows: Int
        var firstX: Double
        var columnPitch: Double
        var rowsTop: Double
        var rowPitch: Double
    }

    private var sections: [Section] = []

    /// The size of the content as of the last ``prepare(_:)``.
    public private(set) var contentSize: CGSize = .zero

    /// Creates a flow layout.
    ///
    /// - Throws: `PrefetchError` (`invalidConfiguration`) when a size is not a
    ///   finite number greater than 0, or a spacing or inset is negative or not finite.
    public init(
        itemSize: CGSize = CGSize(width: 50, height: 50),
        minimumLineSpacing: Double = 10,
        minimumInteritemSpacing: Double = 10,
        sectionInset: ContentInsets = .zero
    ) throws {
        try Self.validate(size: itemSize, what: "FlowLayout itemSize")
        try Self.validate(spacing: minimumLineSpacing, what: "FlowLayout minimumLineSpacing")
        try Self.validate(spacing: minimumInteritemSpacing, what: "FlowLayout minimumInteritemSpacing")
        for (name, value) in [("top", sectionInset.top), ("left", sectionInset.left),
                              ("bottom", sectionInset.bottom), ("right", sectionInset.right)] {
            try Self.validate(spacing: value, what: "FlowLayout sectionInset.\(name)")
        }
        self.itemSize = itemSize
        self.minimumLineSpacing = minimumLineSpacing
        self.minimumInteritemSpacing = minimumInteritemSpacing
        self.sectionInset = sectionInset
    }

    static func validate(size: CGSize, what: String) throws {
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else {
            throw PrefetchError(
                .invalidConfiguration,
                "\(what) is \(size.width)×\(size.height), but width and height must be finite numbers greater than 0"
            )
        }
    }

    static func validate(spacing: Double, what: String) throws {
        guard spacing.isFinite, spacing >= 0 else {
            throw PrefetchError(.invalidConfiguration, "\(what) is \(spacing), but it must be a finite number, at least 0")
        }
    }

    /// The number of columns for a section's item size in a content of `width`.
    ///
    /// - Complexity: O(1).
    package func numberOfColumns(itemWidth: Double, contentWidth: Double) -> Int {
        let available = contentWidth - sectionInset.horizontal
        guard itemWidth <= available else { return 0 }
        return max(1, Int(((available + minimumInteritemSpacing) / (itemWidth + minimumInteritemSpacing)).rounded(.down)))
    }

    /// Computes each section's rows and columns.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) when an item is wider than the
    ///   content minus the section insets, or the delegate gives an invalid size.
    /// - Complexity: O(sections), plus one `sizeForItemAt` call per non-empty section when the
    ///   delegate gives sizes.
    public func prepare(_ environment: LayoutEnvironment) throws {
        let contentWidth = environment.contentWidth
        let available = contentWidth - sectionInset.horizontal
        var result: [Section] = []
        result.reserveCapacity(environment.numberOfItems.count)
        var y = 0.0
        for (index, count) in environment.numberOfItems.enumerated() {
            var size = itemSize
            if environment.providesItemSizes, count > 0,
               let given = environment.sizeForItem(IndexPath(indexes: [index, 0])) {
                try Self.validate(size: given, what: "sizeForItemAt [\(index), 0]")
                size = given
            }
            guard size.width <= available else {
                throw PrefetchError(
                    .invalidArgument,
                    "FlowLayout item width \(size.width) in section \(index) is wider than the available width \(available) (view width \(environment.boundsSize.width) minus content insets \(environment.contentInset.horizontal) and section insets \(sectionInset.horizontal))"
                )
            }
            let columns = numberOfColumns(itemWidth: size.width, contentWidth: contentWidth)
            let rows = (count + columns - 1) / columns
            let firstX: Double
            let columnPitch: Double
            if columns == 1 {
                firstX = sectionInset.left + (available - size.width) / 2
                columnPitch = 0
            } else {
                firstX = sectionInset.left
                columnPitch = size.width + (available - Double(columns) * size.width) / Double(columns - 1)
            }
            let rowPitch = size.height + minimumLineSpacing
            let rowsHeight = rows == 0 ? 0 : Double(rows) * size.height + Double(rows - 1) * minimumLineSpacing
            let start = y
            y += sectionInset.top + rowsHeight + sectionInset.bottom
            result.append(Section(
                start: start, end: y, count: count, itemSize: size, columns: columns, rows: rows,
                firstX: firstX, columnPitch: columnPitch, rowsTop: start + sectionInset.top, rowPitch: rowPitch
            ))
        }
        sections = result
        contentSize = CGSize(width: max(contentWidth, 0), height: y)
    }

    private func frame(in section: Section, item: Int) -> CGRect {
        let row = item / section.columns
        let column = item % section.columns
        return CGRect(
            x: section.firstX + Double(column) * section.columnPitch,
            y: section.rowsTop + Double(row) * section.rowPitch,
            width: section.itemSize.width,
            height: section.itemSize.height
        )
    }

    /// The frame of the item at `indexPath`, or nil when there is no such item.
    ///
    /// - Complexity: O(1).
    public func frameForItem(at indexPath: IndexPath) -> CGRect? {
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sections.count else { return nil }
        let section = sections[indexPath[0]]
        guard indexPath[1] >= 0, indexPath[1] < section.count else { return nil }
        return frame(in: section, item: indexPath[1])
    }

    /// Calls `body` with each item overlapping `rect`, in index path order.
    ///
    /// - Complexity: O(log s + k) for s sections and k items in `rect`; allocates nothing.
    public func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void) {
        guard rect.width > 0, rect.height > 0, rect.minY.isFinite, rect.maxY.isFinite else { return }
        var index = partitionPoint(sections.count) { sections[$0].end > rect.minY }
        while index < sections.count, sections[index].start < rect.maxY {
            let section = sections[index]
            if section.rows > 0 {
                let lastRowIndex = Double(section.rows - 1)
                let firstRowEstimate = ((rect.minY - section.rowsTop - section.itemSize.height) / section.rowPitch).rounded(.down)
                let lastRowEstimate = ((rect.maxY - section.rowsTop) / section.rowPitch).rounded(.up)
                let firstRow = Int(min(max(firstRowEstimate, 0), lastRowIndex + 1))
                let lastRow = Int(max(min(lastRowEstimate, lastRowIndex), -1))
                if firstRow <= lastRow {
                    for row in firstRow...lastRow {
                        let y = section.rowsTop + Double(row) * section.rowPitch
                        guard y < rect.maxY, y + section.itemSize.height > rect.minY else { continue }
                        let firstItem = row * section.columns
                        let end = min(firstItem + section.columns, section.count)
                        for item in firstItem..<end {
                            let frame = frame(in: section, item: item)
                            if frame.overlapsWithPositiveArea(rect) {
                                body(.pair(index, item), frame)
                            }
                        }
                    }
                }
            }
            index += 1
        }
    }
}
