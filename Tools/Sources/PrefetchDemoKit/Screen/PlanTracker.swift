import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Why an item is (or is not) being loaded, as the screen labels it.
package enum PlanReason: Sendable, Equatable {
    /// On screen: its cell asks for its data.
    case onScreen
    /// Requested ahead of the viewport, in the direction of travel.
    case ahead
    /// Requested behind the viewport (against the direction of travel: the way the user came).
    case behind
    /// Requested, in the viewport where the current fling comes to rest.
    case landing
    /// Not requested: a fling carries the viewport past it (between the screen and where the
    /// fling rests), so the plan skipped it.
    case flownPast
    /// Was requested, and the request was withdrawn before its data came (the plan moved on, a
    /// memory warning, prefetching turned off).
    case withdrawn
    /// Never asked for.
    case none
}

/// A run of consecutive requested items and the part of the content it covers.
package struct PlannedRun: Sendable, Equatable {
    /// The items, first to last.
    package var items: ClosedRange<Int>
    /// Their extent along the scroll axis, in content coordinates.
    package var extent: Range<Double>
}

/// Where the current fling (or animated scroll) comes to rest.
package struct Landing: Sendable, Equatable {
    /// What moves the view there.
    package enum Kind: Sendable, Equatable {
        /// A fling coasting with UIKit's deceleration.
        case fling
        /// An animated scroll to a destination.
        case animation
    }

    /// A fling or an animation.
    package var kind: Kind
    /// The viewport then, in content coordinates along the scroll axis.
    package var extent: Range<Double>
    /// The items it will show.
    package var items: ClosedRange<Int>?
    /// Points from the current offset to the resting one (positive toward the end).
    package var distance: Double
}

/// What the screen draws of the prefetch plan on one frame: the requested window, where a fling
/// rests, and the items the plan skipped or withdrew.
package struct PlanFigures: Sendable, Equatable {
    /// The requested items (`SampleApp.plannedItems`) in runs of consecutive items: the window's bounds.
    package var runs: [PlannedRun] = []
    /// Where the current fling rests, while one coasts.
    package var landing: Landing?
    /// How many items the plan requests now.
    package var requested = 0
    /// Items marked flown past (skipped) and not loaded since.
    package var flownPast = 0
    /// Items whose request was withdrawn and that have not loaded since.
    package var withdrawn = 0
    /// `1` toward the end of the content, `-1` toward its start: the latest motion's direction.
    package var heading = 1
    /// Whether the app prefetches (`p`).
    package var prefetching = true

    /// Creates empty figures.
    package init() {}

    /// The requested items' span, first to last, when any.
    package var window: ClosedRange<Int>? {
        guard let first = runs.first, let last = runs.last else { return nil }
        return first.items.lowerBound...last.items.upperBound
    }
}

/// Follows the app's prefetch plan from frame to frame: the items its prefetcher requests
/// (`SampleApp.plannedItems`), the items on screen, and the view's motion (its `scrollState`,
/// the frame the prefetcher's controller forecasts from: a fling's resting offset, an animated
/// scroll's destination). From these it works out which items a fling carries the viewport past
/// without a request, and which requests were withdrawn before their data came.
@MainActor
package final class PlanTracker {
    private var planned: Set<Int> = []
    private var flownPast: Set<Int> = []
    private var withdrawn: Set<Int> = []
    private var heading = 1
    /// The figures of the latest ``update(app:hasData:)``.
    package private(set) var figures = PlanFigures()

    /// The most items kept marked flown past or withdrawn; beyond it the farthest from the screen are forgotten.
    static let markLimit = 2_000

    /// The app's `indexBase` at the last frame: the view indexes held above are relative to it.
    private var indexBase = 0

    /// A tracker that has seen no frame.
    package init() {}

    /// Reads the app's plan and motion for this frame. `hasData` tells whether the item's data is here.
    package func update(app: SampleApp<UUID, DisplayData>, hasData: (Int) -> Bool) {
        let view = app.view
        if app.indexBase != indexBase {
            // Items arrived or went above: what the tracker holds by view index moves with them.
            let shift = indexBase - app.indexBase
            (planned, withdrawn, flownPast) = (Set(planned.map { $0 + shift }), Set(withdrawn.map { $0 + shift }), Set(flownPast.map { $0 + shift }))
            indexBase = app.indexBase
        }
        let now = Set(app.plannedItems)
        let visible = Set(app.visibleItems)
        if view.velocity != 0 { heading = view.velocity > 0 ? 1 : -1 }

        // Requests that left the plan before their data came.
        for item in planned where !now.contains(item) && !visible.contains(item) && !hasData(item) {
            withdrawn.insert(item)
            flownPast.remove(item)
        }
        planned = now

        let landing = Self.landing(of: app)
        if let landing {
            // Between the screen and where the fling rests: what the fling carries past.
            let bounds = view.bounds
            let gap = heading > 0
                ? bounds.maxY..<max(bounds.maxY, landing.extent.lowerBound)
                : min(bounds.minY, landing.extent.upperBound)..<bounds.minY
            if !gap.isEmpty {
                let rect = CGRect(x: bounds.minX, y: gap.lowerBound, width: bounds.width, height: gap.upperBound - gap.lowerBound)
                app.forEachItem(in: rect) { item, frame in
                    // Only items wholly in the gap: the landing zone's edge rows are the plan's.
                    guard frame.minY >= gap.lowerBound, frame.maxY <= gap.upperBound else { return }
                    if !now.contains(item), !hasData(item), !withdrawn.contains(item) { flownPast.insert(item) }
                }
            }
        }
        // A mark lasts until the item is requested again or its data comes.
        flownPast = flownPast.filter { !now.contains($0) && !hasData($0) }
        withdrawn = withdrawn.filter { !now.contains($0) && !hasData($0) }
        if let centre = visible.min(), flownPast.count + withdrawn.count > Self.markLimit {
            let near = { (item: Int) in abs(item - centre) <= Self.markLimit / 4 }
            flownPast = flownPast.filter(near)
            withdrawn = withdrawn.filter(near)
        }

        var figures = PlanFigures()
        figures.runs = Self.runs(of: now.sorted(), frame: { Self.frame(of: $0, in: view) })
        figures.landing = landing
        figures.requested = now.count
        figures.flownPast = flownPast.count
        figures.withdrawn = withdrawn.count
        figures.heading = heading
        figures.prefetching = app.isPrefetchingEnabled
        self.figures = figures
    }

    /// Why `item` (whose frame is `frame`) is or is not loading, as of the latest update.
    package func reason(of item: Int, frame: CGRect, viewport: CGRect) -> PlanReason {
        if frame.maxY > viewport.minY, frame.minY < viewport.maxY { return .onScreen }
        if planned.contains(item) {
            if let landing = figures.landing, frame.maxY > landing.extent.lowerBound, frame.minY < landing.extent.upperBound { return .landing }
            let below = frame.minY >= viewport.maxY
            return below == (heading > 0) ? .ahead : .behind
        }
        if withdrawn.contains(item) { return .withdrawn }
        if flownPast.contains(item) { return .flownPast }
        return .none
    }

    /// Where the view's current fling or animated scroll comes to rest, or nil at rest and
    /// while dragging: the phase of the view's `scrollState`, the frame its prefetcher reads
    /// (a fling's resting offset by UIKit's deceleration, clamped to the content; an animation's
    /// destination).
    static func landing(of app: SampleApp<UUID, DisplayData>) -> Landing? {
        let view = app.view
        let rest: Double, kind: Landing.Kind
        switch view.scrollState.phase {
        case .decelerating(let offset, _): (rest, kind) = (offset, .fling)
        case .programmatic(let offset, _): (rest, kind) = (offset, .animation)
        case .idle, .dragging: return nil
        }
        let bounds = view.bounds
        var first: Int?, last: Int?
        app.forEachItem(in: CGRect(x: bounds.minX, y: rest, width: bounds.width, height: bounds.height)) { item, _ in
            first = min(first ?? item, item)
            last = max(last ?? item, item)
        }
        return Landing(kind: kind, extent: rest..<(rest + bounds.height), items: first.flatMap { f in last.map { f...$0 } },
                       distance: rest - bounds.minY)
    }

    /// `items` (sorted) as runs of consecutive items with their extents.
    static func runs(of items: [Int], frame: (Int) -> CGRect?) -> [PlannedRun] {
        var runs: [PlannedRun] = []
        var start: Int?, previous = Int.min
        func close() {
            guard let first = start, let low = frame(first), let high = frame(previous) else { return }
            runs.append(PlannedRun(items: first...previous, extent: min(low.minY, high.minY)..<max(low.maxY, high.maxY)))
        }
        for item in items {
            if item != previous + 1 {
                close()
                start = item
            }
            previous = item
        }
        close()
        return runs
    }

    /// The frame of `item` in the view's layout, laid out or not.
    static func frame(of item: Int, in view: ItemScrollView) -> CGRect? {
        let indexPath = IndexPath(item: item, section: 0)
        switch view {
        case let grid as CollectionView: return grid.collectionViewLayout.frameForItem(at: indexPath)
        case let list as TableView: return list.rectForRow(at: indexPath)
        default: return nil
        }
    }
}
