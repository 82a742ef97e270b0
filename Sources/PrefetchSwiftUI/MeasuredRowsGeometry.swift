import PrefetchKit

/// Rows of different lengths, as SwiftUI lays out a lazy stack: the rows measured so far keep
/// their lengths, and the others share what is left of the content length SwiftUI reports (or,
/// before it reports one, the app's estimate each). A row holds `columns` items.
///
/// Two Fenwick trees (the measured lengths, and how many rows are measured) give where a row
/// starts in O(log r) for r rows, so a measurement, a new content length and every question of a
/// frame cost O(log r) (a row at an offset, O(log² r)), whatever the number of rows.
struct MeasuredRowsGeometry<Item: Hashable>: ItemGeometry {
    private(set) var items: [Item]
    private let positions: [Item: Int]
    let columns: Int
    let spacing: Double
    let padding: Double
    /// The app's estimate of a row's length.
    let estimate: Double
    /// The length of a row nobody measured: from the reported content length, else the estimate.
    private(set) var unmeasuredLength: Double
    /// The content length SwiftUI reported last, if any.
    private var reportedContentLength: Double?
    private var measured: [Double?]
    private var sums: [Double]
    private var counts: [Int]
    private var measuredTotal = 0.0
    private var measuredCount = 0

    /// Creates rows of `estimate` points for `items`, `columns` to a row; negative or non-finite
    /// lengths count as 0 and a `columns` below 1 as 1.
    /// - Complexity: O(n) for n items.
    init(items: [Item], estimate: Double, columns: Int = 1, spacing: Double = 0, padding: Double = 0) {
        func length(_ value: Double) -> Double { value.isFinite ? max(0, value) : 0 }
        self.items = items
        self.columns = max(1, columns)
        self.spacing = length(spacing)
        self.padding = length(padding)
        self.estimate = length(estimate)
        unmeasuredLength = self.estimate
        var positions: [Item: Int] = [:]
        positions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() where positions[item] == nil { positions[item] = index }
        self.positions = positions
        let rows = items.count / self.columns + (items.count % self.columns == 0 ? 0 : 1)
        measured = Array(repeating: nil, count: rows)
        sums = Array(repeating: 0, count: rows + 1)
        counts = Array(repeating: 0, count: rows + 1)
    }

    var rowCount: Int { measured.count }

    /// The row of `item`, or `nil` when it is not among the items.
    func row(of item: Item) -> Int? { positions[item].map { $0 / columns } }

    /// `item`'s row is `length` points long (a row's tallest item, for several columns).
    /// - Returns: Whether anything changed.
    /// - Complexity: O(log r).
    @discardableResult
    mutating func measure(_ item: Item, length: Double) -> Bool {
        guard let row = row(of: item), length.isFinite, length >= 0 else { return false }
        let old = measured[row]
        let new = columns > 1 ? max(length, old ?? 0) : length
        guard new != old else { return false }
        add(row, length: new - (old ?? 0), count: old == nil ? 1 : 0)
        measured[row] = new
        measuredTotal += new - (old ?? 0)
        if old == nil { measuredCount += 1 }
        refreshUnmeasuredLength()
        return true
    }

    /// SwiftUI reports the content's length: the rows nobody measured share what the measured ones leave.
    /// - Returns: Whether the rows moved.
    mutating func report(contentLength: Double) -> Bool {
        guard contentLength.isFinite, contentLength >= 0, contentLength != reportedContentLength else { return false }
        reportedContentLength = contentLength
        let before = unmeasuredLength
        refreshUnmeasuredLength()
        return unmeasuredLength != before
    }

    private mutating func refreshUnmeasuredLength() {
        let unmeasured = rowCount - measuredCount
        guard unmeasured > 0, let content = reportedContentLength else {
            unmeasuredLength = estimate
            return
        }
        let gaps = Double(max(rowCount - 1, 0)) * spacing
        let left = (content - padding - gaps - measuredTotal) / Double(unmeasured)
        unmeasuredLength = left.isFinite && left > 0 ? left : estimate
    }

    /// The length of `row`.
    func length(ofRow row: Int) -> Double { measured[row] ?? unmeasuredLength }

    /// Where `row` starts: the padding, the rows before it and their gaps.
    /// - Complexity: O(log r).
    func start(ofRow row: Int) -> Double {
        var sum = 0.0, count = 0, index = row
        while index > 0 {
            sum += sums[index]
            count += counts[index]
            index &= index - 1
        }
        return padding + sum + Double(row - count) * unmeasuredLength + Double(row) * spacing
    }

    private mutating func add(_ row: Int, length: Double, count: Int) {
        var index = row + 1
        while index < sums.count {
            sums[index] += length
            counts[index] += count
            index += index & -index
        }
    }

    /// The row that contains `offset`, or the last one that starts before it; 0 before the first.
    /// - Complexity: O(log² r).
    func row(at offset: Double) -> Int {
        var low = 0, high = rowCount - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if start(ofRow: middle) <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Calls `body` with each item whose row meets `range`, row by row.
    /// - Complexity: O(log² r + k) for k items in the range.
    func forEachItem(meeting range: Range<Double>, _ body: (Item, Range<Double>) -> Void) {
        guard rowCount > 0, range.lowerBound.isFinite, range.upperBound.isFinite else { return }
        var row = self.row(at: range.lowerBound)
        var start = start(ofRow: row)
        while row < rowCount, start < range.upperBound {
            let extent = start..<(start + length(ofRow: row))
            if extent.upperBound > range.lowerBound, !extent.isEmpty {
                for index in (row * columns)..<min(items.count, (row + 1) * columns) where positions[items[index]] == index {
                    body(items[index], extent)
                }
            }
            start = extent.upperBound + spacing
            row += 1
        }
    }

    /// The extent of `item`'s row, or `nil` when it is not among the items or its row has no length.
    /// - Complexity: O(log r).
    func extent(of item: Item) -> Range<Double>? {
        guard let row = row(of: item) else { return nil }
        let start = start(ofRow: row), length = length(ofRow: row)
        return length > 0 && start.isFinite ? start..<(start + length) : nil
    }
}
