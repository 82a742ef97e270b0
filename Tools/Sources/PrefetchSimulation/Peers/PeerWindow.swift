import Foundation
import PrefetchCollectionView
import PrefetchKit

/// Where a scenario's items lie along the scroll axis, for the peers that count items: lines of
/// `itemsPerLine` items, `extent` points long, one every `pitch` points from `firstLine` on.
struct PeerGeometry: Sendable, Hashable {
    /// Items side by side in a line (a grid's columns; 1 for a list).
    var itemsPerLine: Int
    /// Where the first line starts.
    var firstLine: Double
    /// From one line's start to the next's.
    var pitch: Double
    /// A line's length along the axis (with ``rowEdges``, the typical row's).
    var extent: Double
    /// For a list of rows of different heights: where each row starts, then where the last one
    /// ends (nil: lines of one length, every ``pitch`` points).
    var rowEdges: [Double]?

    /// A list of rows `height` points high.
    static func rows(of height: Double) -> PeerGeometry {
        PeerGeometry(itemsPerLine: 1, firstLine: 0, pitch: height, extent: height)
    }

    /// A list of rows of `layout`'s heights (items `0..<itemCount`), `layout.itemHeight` the typical one.
    static func rows(of layout: ScenarioLayout, heights: RowHeights) -> PeerGeometry {
        var edges = [0.0]
        edges.reserveCapacity(layout.itemCount + 1)
        for item in 0..<layout.itemCount { edges.append(edges[item] + heights.height(ofItem: item)) }
        return PeerGeometry(itemsPerLine: 1, firstLine: 0, pitch: layout.itemHeight, extent: layout.itemHeight, rowEdges: edges)
    }

    /// The geometry of `layout` in `viewport`, with the columns `FlowLayout` gives a grid.
    @MainActor
    static func of(_ layout: ScenarioLayout, in viewport: Viewport) throws -> PeerGeometry {
        switch layout.kind {
        case .list:
            if let heights = layout.rowHeights { return rows(of: layout, heights: heights) }
            return rows(of: layout.itemHeight)
        case .grid:
            let inset = ContentInsets(top: layout.sectionInset, left: layout.sectionInset, bottom: layout.sectionInset, right: layout.sectionInset)
            let flow = try FlowLayout(
                itemSize: CGSize(width: layout.itemWidth, height: layout.itemHeight), minimumLineSpacing: layout.spacing,
                minimumInteritemSpacing: layout.spacing, sectionInset: inset)
            let columns = flow.numberOfColumns(itemWidth: layout.itemWidth, contentWidth: viewport.width)
            return PeerGeometry(
                itemsPerLine: max(1, columns), firstLine: layout.sectionInset, pitch: layout.itemHeight + layout.spacing,
                extent: layout.itemHeight)
        }
    }

    /// The start of the first line that starts at or after `y`.
    func lineStart(atOrAfter y: Double) -> Double {
        firstLine + max(0, ((y - firstLine) / pitch).rounded(.up)) * pitch
    }

    /// The end of the last line that ends at or before `y`, or nil when none does.
    func lineEnd(atOrBefore y: Double) -> Double? {
        let index = ((y - extent - firstLine) / pitch).rounded(.down)
        return index >= 0 ? firstLine + index * pitch + extent : nil
    }

    /// Where a window of `count` (at least 1) whole lines past `y` toward the end reaches: half
    /// way into the last of the lines that start at or after `y`.
    func reach(lines count: Int, after y: Double) -> Double {
        guard let edges = rowEdges, edges.count > 1 else {
            return lineStart(atOrAfter: y) + Double(count - 1) * pitch + extent / 2
        }
        let rows = edges.count - 1
        let first = partition(rows) { edges[$0] >= y }
        guard first < rows else { return edges[rows] + extent / 2 }
        let last = min(first + count - 1, rows - 1)
        return (edges[last] + edges[last + 1]) / 2
    }

    /// Where a window of `count` (at least 1) whole lines before `y` toward the start reaches:
    /// half way into the first of the lines that end at or before `y`; nil when none does.
    func reach(lines count: Int, before y: Double) -> Double? {
        guard let edges = rowEdges, edges.count > 1 else {
            return lineEnd(atOrBefore: y).map { $0 - Double(count - 1) * pitch - extent / 2 }
        }
        // The last row ending at or before y: the row before the first whose end lies past y.
        let nearest = partition(edges.count - 1) { edges[$0 + 1] > y } - 1
        guard nearest >= 0 else { return nil }
        let first = max(nearest - (count - 1), 0)
        return (edges[first] + edges[first + 1]) / 2
    }

    /// The first index in `0..<count` for which `isAfter` holds (false, then true).
    private func partition(_ count: Int, _ isAfter: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(middle) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A peer's window as a ``PrefetchKit/PrefetchPolicy``: the regions the peer would load, frame
/// by frame. Made by `PeerModel.window(geometry:latency:)`.
struct PeerWindow: PrefetchPolicy, Hashable {
    /// The shape of the window.
    enum Rule: Sendable, Hashable {
        /// UIKit's window: `PrefetchPolicies.uikitLike`.
        case uikit
        /// FlashList's split draw distance (see `PeerModel.Window.drawDistance`).
        case drawDistance(Double, projection: Double)
        /// `distance` points on both sides of the viewport.
        case around(Double)
        /// `count` whole lines past the last visible line, in the direction of the latest motion.
        case lines(count: Int)
        /// Compose's window while scrolling (see `PeerModel.Window.nextItem`).
        case nextLine(minShare: Double, maxShare: Double)
    }

    /// The peer's name.
    let name: String
    /// The shape.
    let rule: Rule
    /// Where the items lie.
    let geometry: PeerGeometry

    /// The regions for one frame: one region, or none.
    ///
    /// - Complexity: O(1).
    func plan(for context: ScrollContext) -> PrefetchPlan {
        let viewport = context.viewport
        let length = context.viewportLength
        let content = context.contentLength
        guard length.isFinite, length > 0, content.isFinite, viewport.lowerBound.isFinite else { return .empty }
        let region: Range<Double>?
        switch rule {
        case .uikit:
            return PrefetchPolicies.uikitLike.plan(for: context)
        case .drawDistance(let distance, let projection):
            region = drawDistance(distance, projection: projection, context)
        case .around(let distance):
            region = clipped(viewport.lowerBound - distance, viewport.upperBound + distance, content)
        case .lines(let count):
            region = lines(count, from: viewport, towardEnd: context.heading >= 0, content)
        case .nextLine(let minShare, let maxShare):
            guard context.phase != .idle || context.velocity != 0 else { return .empty }
            let towardEnd = context.velocity != 0 ? context.velocity > 0 : context.heading >= 0
            let window = min(max(geometry.extent, minShare * length), maxShare * length)
            let next = lines(1, from: viewport, towardEnd: towardEnd, content)
            let span = towardEnd
                ? clipped(viewport.upperBound, viewport.upperBound + window, content)
                : clipped(viewport.lowerBound - window, viewport.lowerBound, content)
            region = union(next, span)
        }
        return region.map { PrefetchPlan(regions: [$0]) } ?? .empty
    }

    /// FlashList v2's engaged range: twice the draw distance split 70/30 toward the latest
    /// motion, around the viewport projected `projection` seconds ahead; what one side cannot
    /// use at an edge of the content goes to the other.
    private func drawDistance(_ distance: Double, projection: Double, _ context: ScrollContext) -> Range<Double>? {
        let start = context.viewport.lowerBound + context.velocity * projection
        let total = 2 * distance
        let backward = context.heading < 0
        let before = (total * (backward ? 0.7 : 0.3)).rounded(.up)
        let after = (total * (backward ? 0.3 : 0.7)).rounded(.up)
        var lower = max(0, start - before)
        var upper = start + context.viewportLength + after + max(0, before - start)
        if upper > context.contentLength {
            lower = max(0, lower - (upper - context.contentLength))
            upper = context.contentLength
        }
        return lower < upper ? lower..<upper : nil
    }

    /// `count` whole lines past the viewport: those starting at or after its end (toward the
    /// end), or ending at or before its start (toward the start).
    private func lines(_ count: Int, from viewport: Range<Double>, towardEnd: Bool, _ content: Double) -> Range<Double>? {
        guard count > 0 else { return nil }
        if towardEnd {
            return clipped(viewport.upperBound, geometry.reach(lines: count, after: viewport.upperBound), content)
        }
        guard let reach = geometry.reach(lines: count, before: viewport.lowerBound) else { return nil }
        return clipped(reach, viewport.lowerBound, content)
    }

    /// `lower..<upper` within the content, or nil when nothing of it is.
    private func clipped(_ lower: Double, _ upper: Double, _ content: Double) -> Range<Double>? {
        let (lower, upper) = (max(lower, 0), min(upper, content))
        return lower < upper ? lower..<upper : nil
    }

    /// The smallest range holding both (they touch the same edge of the viewport).
    private func union(_ a: Range<Double>?, _ b: Range<Double>?) -> Range<Double>? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a.lowerBound, b.lowerBound)..<max(a.upperBound, b.upperBound)
    }
}
