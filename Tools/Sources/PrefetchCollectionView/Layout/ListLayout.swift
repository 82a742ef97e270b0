import Foundation
import PrefetchKit

/// Full-width rows stacked top to bottom, like a plain `UITableView`.
///
/// Rows share one height unless heights are given per row, either at creation
/// (``init(rowHeights:defaultRowHeight:)``) or by the delegate (`heightForRowAt`, `sizeForItemAt`). With one
/// height the layout stores nothing per row and answers in O(1) per row; with per-row heights
/// it keeps one prefix sum per row and finds rows by binary search in O(log n).
///
/// ```swift
/// let layout = try ListLayout(rowHeight: 66)
/// ```
@MainActor
public final class ListLayout: CollectionLayout {
    /// The height of rows that have no height of their own.
    let rowHeight: Double
    private let explicitHeights: [[Double]]?

    private struct Section {
        var start: Double
        var end: Double
        var count: Int
        /// Row `i` spans `offsets[i]..<offsets[i + 1]`, relative to `start`; nil when uniform.
        var offsets: [Double]?
    }

    private var sections: [Section] = []

    /// The size of the content as of the last ``prepare(_:)``.
    public private(set) var contentSize: CGSize = .zero

    /// Creates a list whose rows are all `rowHeight` points high (unless the delegate gives heights).
    ///
    /// - Throws: `PrefetchError` (`invalidConfiguration`) when `rowHeight` is not a
    ///   finite number greater than 0.
    public init(rowHeight: Double = 44) throws {
        try Self.validate(height: rowHeight, what: "ListLayout rowHeight")
        self.rowHeight = rowHeight
        self.explicitHeights = nil
    }

    /// Creates a list with one height per row: `rowHeights[section][row]`.
    ///
    /// Sections or rows beyond the arrays use `defaultRowHeight`.
    ///
    /// - Throws: `PrefetchError` (`invalidConfiguration`) naming the first height
    ///   that is not a finite number greater than 0.
    public init(rowHeights: [[Double]], defaultRowHeight: Double = 44) throws {
        try Self.validate(height: defaultRowHeight, what: "ListLayout defaultRowHeight")
        for (section, heights) in rowHeights.enumerated() {
            for (row, height) in heights.enumerated() {
                try Self.validate(height: height, what: "ListLayout row height at [\(section), \(row)]")
            }
        }
        self.rowHeight = defaultRowHeight
        self.explicitHeights = rowHeights
    }

    static func validate(height: Double, what: String) throws {
        guard height.isFinite, height > 0 else {
            throw PrefetchError(.invalidConfiguration, "\(what) is \(height), but it must be a finite number greater than 0")
        }
    }

    /// Computes each section's extent, and prefix sums when rows have their own heights.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) when the delegate gives a
    ///   height that is not a finite number greater than 0.
    /// - Complexity: O(sections) with one row height; O(rows) with per-row heights.
    public func prepare(_ environment: LayoutEnvironment) throws {
        var result: [Section] = []
        result.reserveCapacity(environment.numberOfItems.count)
        var y = 0.0
        for (index, count) in environment.numberOfItems.enumerated() {
            let start = y
            let given = explicitHeights.map { index < $0.count ? $0[index] : [] }
            if environment.providesItemSizes || (given.map { !$0.isEmpty } ?? false) {
                var offsets = [0.0]
                offsets.reserveCapacity(count + 1)
                var total = 0.0
                for row in 0..<count {
                    var height = rowHeight
                    if let given, row < given.count { height = given[row] }
                    if environment.providesItemSizes, let size = environment.sizeForItem(IndexPath(indexes: [index, row])) {
                        guard size.height.isFinite, size.height > 0 else {
                            throw PrefetchError(
                                .invalidArgument,
                                "the height for row [\(index), \(row)] is \(size.height), but it must be a finite number greater than 0"
                            )
                        }
                        height = size.height
                    }
                    total += height
                    offsets.append(total)
                }
                y += total
                result.append(Section(start: start, end: y, count: count, offsets: offsets))
            } else {
                y += Double(count) * rowHeight
                result.append(Section(start: start, end: y, count: count, offsets: nil))
            }
        }
        sections = result
        contentSize = CGSize(width: max(environment.contentWidth, 0), height: y)
    }

    /// Gives rows new heights without asking the environment again, as a self-sizing
    /// ``TableView`` does when it measures rows it had laid out at an estimate: the rows after
    /// each changed one, and the sections after it, move by the difference. Index paths out of
    /// range are ignored; heights must be finite and greater than 0.
    ///
    /// - Complexity: O(r + s) for the rows from the first changed one to the end of its section
    ///   and the sections after it.
    func setHeights(_ changes: [(indexPath: IndexPath, height: Double)]) {
        var bySection: [Int: [Int: Double]] = [:]
        for change in changes where change.indexPath.count == 2 {
            let (index, row) = (change.indexPath[0], change.indexPath[1])
            guard index >= 0, index < sections.count, row >= 0, row < sections[index].count else { continue }
            precondition(change.height.isFinite && change.height > 0,
                         "the height for row \(change.indexPath) is \(change.height), but it must be a finite number greater than 0")
            bySection[index, default: [:]][row] = change.height
        }
        guard let first = bySection.keys.min() else { return }
        var carried = 0.0
        for index in first..<sections.count {
            sections[index].start += carried
            if let heights = bySection[index] {
                let count = sections[index].count
                let original = sections[index].offsets ?? (0...count).map { Double($0) * rowHeight }
                let rows = heights.keys.sorted()
                var offsets = original
                var next = 0, delta = 0.0
                for boundary in (rows[0] + 1)...count {
                    // The row just above this boundary, if it changed: its old height from before any change.
                    if next < rows.count, rows[next] == boundary - 1 {
                        delta += heights[rows[next]]! - (original[boundary] - original[boundary - 1])
                        next += 1
                    }
                    offsets[boundary] = original[boundary] + delta
                }
                sections[index].offsets = offsets
                carried += delta
            }
            sections[index].end += carried
        }
        contentSize.height += carried
    }

    private func rowSpan(_ section: Section, _ row: Int) -> (Double, Double) {
        if let offsets = section.offsets {
            return (section.start + offsets[row], section.start + offsets[row + 1])
        }
        let top = section.start + Double(row) * rowHeight
        return (top, top + rowHeight)
    }

    /// The frame of the row at `indexPath`, or nil when there is no such row.
    ///
    /// - Complexity: O(1).
    public func frameForItem(at indexPath: IndexPath) -> CGRect? {
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sections.count else { return nil }
        let section = sections[indexPath[0]]
        guard indexPath[1] >= 0, indexPath[1] < section.count else { return nil }
        let (top, bottom) = rowSpan(section, indexPath[1])
        return CGRect(x: 0, y: top, width: contentSize.width, height: bottom - top)
    }

    /// Calls `body` with each row overlapping `rect`, in index path order.
    ///
    /// - Complexity: O(log s + k) with one row height, O(log n + k) with per-row heights, for s
    ///   sections, n rows and k rows in `rect`; allocates nothing.
    public func forEachItem(in rect: CGRect, _ body: (IndexPath, CGRect) -> Void) {
        guard rect.width > 0, rect.height > 0, rect.minY.isFinite, rect.maxY.isFinite,
              rect.minX < contentSize.width, rect.maxX > 0, contentSize.width > 0 else { return }
        var index = partitionPoint(sections.count) { sections[$0].end > rect.minY }
        while index < sections.count, sections[index].start < rect.maxY {
            let section = sections[index]
            if section.count > 0 {
                var row: Int
                if let offsets = section.offsets {
                    // The first row whose bottom lies below rect.minY.
                    row = partitionPoint(section.count) { section.start + offsets[$0 + 1] > rect.minY }
                } else {
                    let estimate = ((rect.minY - section.start) / rowHeight).rounded(.down)
                    row = Int(min(max(estimate, 0), Double(section.count)))
                    while row > 0, rowSpan(section, row - 1).1 > rect.minY { row -= 1 }
                }
                while row < section.count {
                    let (top, bottom) = rowSpan(section, row)
                    if top >= rect.maxY { break }
                    if bottom > rect.minY, bottom > top {
                        body(.pair(index, row), CGRect(x: 0, y: top, width: contentSize.width, height: bottom - top))
                    }
                    row += 1
                }
            }
            index += 1
        }
    }
}
