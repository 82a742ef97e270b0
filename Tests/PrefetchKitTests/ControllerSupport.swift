import PrefetchKit
import PrefetchTesting

typealias RecordingTarget = RecordingPrefetchTarget

/// Rows of one height, numbered from 0: the simplest scroll geometry.
struct Rows: ItemGeometry {
    var count: Int
    var height: Double

    func extent(of item: Int) -> Range<Double>? {
        (0..<count).contains(item) ? Double(item) * height..<Double(item + 1) * height : nil
    }

    func forEachItem(meeting range: Range<Double>, _ body: (Int, Range<Double>) -> Void) {
        guard count > 0, range.upperBound > 0, range.lowerBound < Double(count) * height else { return }
        let first = max(0, Int((range.lowerBound / height).rounded(.down)))
        let last = min(count - 1, Int((range.upperBound / height).rounded(.up)) - 1)
        guard first <= last else { return }
        for row in first...last {
            let extent = Double(row) * height..<Double(row + 1) * height
            if extent.lowerBound < range.upperBound && range.lowerBound < extent.upperBound { body(row, extent) }
        }
    }
}

/// A grid: `columns` items per row, rows `height` high with `spacing` between them; items are
/// numbered row by row. Only for small counts: it looks at every item (the property test's oracle
/// uses it as is).
struct Grid: ItemGeometry {
    var count: Int
    var columns: Int
    var height: Double
    var spacing: Double

    func extent(of item: Int) -> Range<Double>? {
        guard (0..<count).contains(item) else { return nil }
        let top = Double(item / columns) * (height + spacing)
        return top..<(top + height)
    }

    func forEachItem(meeting range: Range<Double>, _ body: (Int, Range<Double>) -> Void) {
        for item in 0..<count {
            let extent = extent(of: item)!
            if extent.lowerBound < range.upperBound && range.lowerBound < extent.upperBound { body(item, extent) }
        }
    }

    var contentLength: Double { count == 0 ? 0 : Double((count + columns - 1) / columns) * (height + spacing) - spacing }
}

/// One frame of a 300 pt viewport at `offset` on 10,000 pt of content: the controller tests' setting.
func frame(_ time: Double, at offset: Double, velocity: Double = 0, _ phase: MotionPhase = .idle) -> ScrollState {
    ScrollState(seconds: time, viewport: offset..<(offset + 300), contentLength: 10_000, velocity: velocity, phase: phase)
}

/// A policy with fixed regions, so a test knows its plan by heart.
struct FixedPolicy: PrefetchPolicy {
    var regions: [Range<Double>]
    var name: String { "fixed" }
    func plan(for context: ScrollContext) -> PrefetchPlan { PrefetchPlan(regions: regions) }
}

extension PrefetchUpdate {
    /// The requested items, most urgent first.
    var requestedItems: [Item] { requests.map(\.item) }
}

extension ItemGeometry {
    /// The items whose extents meet `range`, in ascending order along the axis.
    func items(meeting range: Range<Double>) -> [Item] {
        var result: [Item] = []
        forEachItem(meeting: range) { item, _ in result.append(item) }
        return result
    }
}
