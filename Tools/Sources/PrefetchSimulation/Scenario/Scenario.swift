import PrefetchKit
import PrefetchToolSupport

/// One scroll scenario: a layout, a viewport, and how the user moves.
public struct Scenario: Sendable, Hashable {
    /// The scenario's name, as tables and reports show it.
    public var name: String
    /// The grid or list the user scrolls.
    var layout: ScenarioLayout
    /// The visible area.
    var viewport: Viewport
    /// How the user scrolls.
    var motion: Motion
    /// The payload size of one item under the independent network model (for a bandwidth-bound
    /// latency model, and the bytes a load moves).
    var payloadBytes = 50_000
    /// The payload size of each item on a shared link (a trace's `itemBytes`); nil: the link's sizes.
    var itemBytes: [Int]?
    /// Whether the view rubber-bands as UIKit's does by default: a drag past either end of the
    /// content pulls it on ever less and it springs back when the finger lifts (a trace's
    /// `bounces`; off by default, so every older scenario plays as before).
    var bounces = false
    /// Whether a list's rows of different heights size themselves, as a UIKit app's self-sizing
    /// cells do: laid out at the typical height until each comes on screen (a trace's
    /// `layout.selfSizing`; off by default). The SwiftUI toolkit's lazy stack estimates rows in
    /// any case.
    var selfSizing = false

    /// How the user scrolls: gestures, or recorded offsets.
    enum Motion: Sendable, Hashable {
        /// Gestures performed one after another.
        case gestures([ScrollGesture])
        /// Recorded `(seconds, offset)` samples; offsets are interpolated between samples.
        case samples([OffsetSample])

        /// Whether the motion is gestures.
        var isGestures: Bool { if case .gestures = self { true } else { false } }
    }


    /// Checks the scenario, naming the first bad value.
    func validate() throws {
        try layout.validate()
        try viewport.validate()
        guard payloadBytes >= 0 else { throw SimulationError("payloadBytes is \(payloadBytes), but it must be 0 or more") }
        if let itemBytes {
            try PayloadSizes.perItem(itemBytes).validate()
            guard itemBytes.count == layout.itemCount else {
                throw SimulationError(path: "itemBytes", "has \(itemBytes.count) sizes, but the layout has \(layout.itemCount) items; give one size per item")
            }
        }
        if selfSizing {
            guard layout.kind == .list, layout.rowHeights != nil else {
                throw SimulationError(path: "layout.selfSizing", "applies to a list of rows of different heights (layout.rowHeights); this layout's rows share one size")
            }
            guard motion.isGestures else {
                throw SimulationError(path: "layout.selfSizing", "applies to a trace of gestures; a trace of samples records offsets in the rows' true heights")
            }
        }
        switch motion {
        case .gestures(let gestures):
            for (i, g) in gestures.enumerated() { try g.validate(itemCount: layout.itemCount, at: "gestures[\(i)]") }
        case .samples(let samples):
            guard !samples.isEmpty else { throw SimulationError(path: "samples", "a trace needs at least one sample") }
            for (i, s) in samples.enumerated() {
                guard s.time.isFinite, s.time >= 0 else { throw SimulationError(path: "samples[\(i)][0]", "time \(s.time) must be a finite number of seconds, at least 0") }
                guard s.offset.isFinite else { throw SimulationError(path: "samples[\(i)][1]", "offset \(s.offset) must be finite") }
                if i > 0, s.time < samples[i - 1].time {
                    throw SimulationError(path: "samples[\(i)][0]", "time \(s.time) is before the previous sample's \(samples[i - 1].time); samples must be in time order")
                }
            }
            _ = try TracePhases.checked(samples, offsetRange: layout.offsetRange(viewport: viewport))
        }
    }
}

extension Scenario {
    /// A scenario of `gestures`, one after another, each load fetching `payloadBytes`.
    public init(name: String, layout: ScenarioLayout, viewport: Viewport, gestures: [ScrollGesture], payloadBytes: Int = 50_000) {
        self.init(name: name, layout: layout, viewport: viewport, motion: .gestures(gestures), payloadBytes: payloadBytes)
    }

    /// The payload sizes a load of this scenario moves under `network`: the fixed `payloadBytes`
    /// when independent; on a shared link, the scenario's `itemBytes` when it has them, else the link's sizes
    /// (sizes that follow the cell, ``PayloadSizes/cell(_:)``, from this scenario's cell).
    func sizes(on network: NetworkModel) -> PayloadSizes {
        switch network {
        case .independent: .fixed(payloadBytes)
        case .shared(let link):
            if let itemBytes { .perItem(itemBytes) } else if case .cell(let images) = link.sizes { images.sizes(layout: layout, viewport: viewport) } else { link.sizes }
        }
    }
}

/// A recorded scroll position, with what moved the content there when the trace says so.
struct OffsetSample: Sendable, Hashable {
    /// Seconds since the start.
    var time: Double
    /// The content offset along the scroll axis, in points.
    var offset: Double
    /// What moved the content (nil in traces without phases: the replay infers them).
    var phase: TracePhase?
    /// At touch-up (the first `decelerating` sample after `touching`): where the fling will
    /// rest, as UIKit's `targetContentOffset` gives it.
    var restingOffset: Double?
    /// Creates a sample.
    init(time: Double, offset: Double, phase: TracePhase? = nil, restingOffset: Double? = nil) {
        self.time = time
        self.offset = offset
        self.phase = phase
        self.restingOffset = restingOffset
    }
}

/// One user gesture.
public enum ScrollGesture: Sendable, Hashable {
    /// Drag at `speed` points per second (negative toward the start) for `duration` seconds, then let go without a fling.
    case drag(speed: Double, duration: Double)
    /// Fling at `velocity` points per second and wait until the view comes to rest.
    case fling(velocity: Double)
    /// Jump to an item (a tap on an index, a "scroll to top"): no scrolling in between.
    case jump(item: Int)
    /// Do nothing for `duration` seconds.
    case pause(duration: Double)
    /// Fling at `velocity` points per second and move on to the next gesture after `duration`
    /// seconds while the view may still coast (a rotation mid-fling).
    case flingFor(velocity: Double, duration: Double)
    /// The app scrolls with animation to an item (`scrollToItem(at:at: .top, animated: true)`),
    /// along UIKit's ease-in-out curve for `duration` seconds, telling its prefetcher first
    /// (`willScroll(to:animated: true)`); the next gesture starts when the animation ends.
    case animate(item: Int, duration: Double)
    /// A tap on the status bar: the view scrolls to the top with animation (0.3 s, ease-in-out).
    case statusBarTap
    /// The app puts the content at `offset` without animation (a "back to where you were"
    /// restore, `setContentOffset(_:animated: false)`), telling its prefetcher first.
    case restore(offset: Double)
    /// The device rotates: the viewport becomes `width` × `height` points at once.
    case rotate(width: Double, height: Double)
    /// `count` new items arrive above the first (a feed's new posts, a chat's older messages) and
    /// the app keeps the user's place (`SampleApp.insertAbove(count:)`). With `after`, during the
    /// gesture before it, `after` seconds after that gesture started (a snapshot applied
    /// mid-drag); without, once it has ended.
    case insertAbove(count: Int, after: Double?)
    /// The first `count` items are deleted, the app keeping the user's place; `after` as for ``insertAbove(count:after:)``.
    case deleteAbove(count: Int, after: Double?)

    /// How many items one insert or delete above may change: 1 to 100,000.
    static let changeCounts = 1...100_000

    /// Whether the gesture happens during the one before it (an insert or a delete with `after`)
    /// rather than after it: the seconds into the gesture before, or nil.
    var during: Double? {
        switch self {
        case .insertAbove(_, let after), .deleteAbove(_, let after): after
        default: nil
        }
    }

    /// The durations an animated scroll (``animate(item:duration:)``) may take, in seconds: 0.05 to 5.
    static let animationDurations = 0.05...5.0
    /// UIKit's animated scroll duration, about 0.3 s (what PrefetchKit assumes when an app does
    /// not say how long its animated scroll takes).
    public static let defaultAnimationDuration = 0.3

    func validate(itemCount: Int, at path: String) throws {
        switch self {
        case .drag(let speed, let duration):
            guard speed.isFinite else { throw SimulationError(path: path, "drag speed \(speed) must be finite") }
            guard duration.isFinite, duration >= 0 else { throw SimulationError(path: path, "drag duration \(duration) must be a finite number of seconds, at least 0") }
        case .fling(let velocity):
            guard velocity.isFinite else { throw SimulationError(path: path, "fling velocity \(velocity) must be finite") }
        case .jump(let item):
            guard (0..<itemCount).contains(item) else { throw SimulationError(path: path, "jump item \(item) is out of range 0..<\(itemCount)") }
        case .pause(let duration):
            guard duration.isFinite, duration >= 0 else { throw SimulationError(path: path, "pause duration \(duration) must be a finite number of seconds, at least 0") }
        case .flingFor(let velocity, let duration):
            guard velocity.isFinite else { throw SimulationError(path: "\(path).fling.velocity", "fling velocity \(velocity) must be finite") }
            guard duration.isFinite, duration >= 0 else {
                throw SimulationError(path: "\(path).fling.for", "\(duration) must be a finite number of seconds, at least 0")
            }
        case .animate(let item, let duration):
            guard (0..<itemCount).contains(item) else {
                throw SimulationError(path: "\(path).animate.item", "item \(item) is out of range 0..<\(itemCount)")
            }
            guard duration.isFinite, Self.animationDurations.contains(duration) else {
                throw SimulationError(
                    path: "\(path).animate.duration",
                    "\(duration) s is out of range; an animated scroll takes \(Self.animationDurations.lowerBound) to \(Self.animationDurations.upperBound) s")
            }
        case .statusBarTap:
            break
        case .restore(let offset):
            guard offset.isFinite, offset >= 0 else {
                throw SimulationError(path: "\(path).restore.offset", "\(offset) must be a finite number of points, at least 0 (it is clamped to the content)")
            }
        case .rotate(let width, let height):
            try Viewport(width: width, height: height).validate(at: "\(path).rotate.")
        case .insertAbove(let count, let after), .deleteAbove(let count, let after):
            let key = if case .insertAbove = self { "insertAbove" } else { "deleteAbove" }
            guard (1...Self.changeCounts.upperBound).contains(count) else {
                throw SimulationError(path: "\(path).\(key).count", "\(count) items is out of range; use 1 to \(Self.changeCounts.upperBound)")
            }
            if let after, !(after.isFinite && after >= 0) {
                throw SimulationError(path: "\(path).\(key).after", "\(after) must be a finite number of seconds, at least 0")
            }
        }
    }
}

/// The scrolled content: a grid of equal items, or a list of rows of one height or of each
/// row's own height.
public struct ScenarioLayout: Sendable, Hashable {
    /// Grid or list.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A flow layout of equal items (the collection view of Apple's sample).
        case grid
        /// A table of full-width rows (the tutorial's table view): of one height, or each of its
        /// own (``RowHeights``).
        case list
    }

    /// Grid or list.
    var kind: Kind
    /// The number of items.
    var itemCount: Int
    /// An item's width (grid only; list rows take the viewport's width).
    var itemWidth: Double
    /// An item's or row's height.
    var itemHeight: Double
    /// The spacing between items and lines (grid only).
    var spacing: Double
    /// The inset of the section from the content's edges, on every side (grid only).
    var sectionInset = 0.0
    /// Each row's own height (list only); nil: every row is ``itemHeight`` high. With heights,
    /// ``itemHeight`` is the typical row, what an app estimates a row it has not laid out to be.
    var rowHeights: RowHeights?

    /// The grid of Apple's sample: 150×100 items with spacing 10.
    public static func grid(itemCount: Int = 10_000) -> ScenarioLayout {
        ScenarioLayout(kind: .grid, itemCount: itemCount, itemWidth: 150, itemHeight: 100, spacing: 10)
    }

    /// The storyboard of Apple's sample, as the demo shows it: 150×100 items, 10 points apart and
    /// from the edges.
    public static func seedSample(itemCount: Int = 1_000) -> ScenarioLayout {
        ScenarioLayout(kind: .grid, itemCount: itemCount, itemWidth: 150, itemHeight: 100, spacing: 10, sectionInset: 10)
    }

    /// The tutorial's list: rows 66 points high.
    public static func list(itemCount: Int = 10_000) -> ScenarioLayout {
        ScenarioLayout(kind: .list, itemCount: itemCount, itemWidth: 0, itemHeight: 66, spacing: 0)
    }

    /// A feed of text posts and photo posts: `itemCount` rows, each of its own height between 60
    /// and 420 points drawn from `seed` (``RowHeights/feed(seed:)``), the typical row their mean.
    public static func feed(itemCount: Int = 10_000, seed: UInt64 = 1) -> ScenarioLayout {
        list(itemCount: itemCount, rowHeights: .feed(seed: seed))
    }

    /// A list of `itemCount` rows whose heights `rowHeights` gives, the typical row their mean
    /// (rounded to a whole point); for ``RowHeights/perItem(_:)``, give one height per item.
    public static func list(itemCount: Int, rowHeights: RowHeights) -> ScenarioLayout {
        let mean = rowHeights.mean(itemCount: itemCount)
        return ScenarioLayout(kind: .list, itemCount: itemCount, itemWidth: 0, itemHeight: mean.isFinite && mean >= 1 ? mean.rounded() : 1,
                              spacing: 0, rowHeights: rowHeights)
    }

    /// The height of the row of item number `item` (a stable number: below 0 for rows inserted
    /// above the first), or nil when the rows share ``itemHeight`` or the layout is a grid.
    func rowHeight(ofItem item: Int) -> Double? {
        guard kind == .list else { return nil }
        return rowHeights?.height(ofItem: item)
    }

    /// Checks the layout, naming the first bad value and the rule.
    func validate() throws {
        guard itemCount >= 1 else { throw SimulationError(path: "layout.itemCount", "\(itemCount) items; a layout needs at least 1") }
        if let rowHeights {
            guard kind == .list else {
                throw SimulationError(path: "layout.rowHeights", "a grid's items share one size; rows of their own heights are for a list")
            }
            try rowHeights.validate(itemCount: itemCount)
        }
        guard itemHeight.isFinite, itemHeight > 0 else { throw SimulationError(path: "layout.itemHeight", "\(itemHeight) must be a finite number greater than 0") }
        guard spacing.isFinite, spacing >= 0 else { throw SimulationError(path: "layout.spacing", "\(spacing) must be a finite number, at least 0") }
        guard sectionInset.isFinite, sectionInset >= 0 else {
            throw SimulationError(path: "layout.sectionInset", "\(sectionInset) must be a finite number, at least 0")
        }
        if kind == .grid {
            guard itemWidth.isFinite, itemWidth > 0 else { throw SimulationError(path: "layout.itemWidth", "\(itemWidth) must be a finite number greater than 0") }
        }
    }
}

/// The size of the visible area, in points.
public struct Viewport: Sendable, Hashable {
    /// The width.
    var width: Double
    /// The height.
    var height: Double
    /// Creates a viewport.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The collection view of Apple's sample: about 343×333 points.
    public static let seedGrid = Viewport(width: 343, height: 333)
    /// A phone-sized table view.
    public static let phoneList = Viewport(width: 375, height: 667)

    /// Checks the viewport, naming the first bad value (`prefix` + `width` or `height`) and the rule.
    func validate(at prefix: String = "viewport.") throws {
        guard width.isFinite, width > 0 else { throw SimulationError(path: "\(prefix)width", "\(width) must be a finite number greater than 0") }
        guard height.isFinite, height > 0 else { throw SimulationError(path: "\(prefix)height", "\(height) must be a finite number greater than 0") }
    }
}

/// The heights of a list's rows, one per row: rows of different heights, the normal case in a
/// SwiftUI list and in a feed.
///
/// A row's height follows its item, not its place: rows inserted above the first (stable numbers
/// below 0) and rows past the end get heights too, so an insert moves no row's height to another.
public enum RowHeights: Sendable, Hashable {
    /// A feed of text posts and photo posts, each row's height drawn from `seed` and the item's
    /// number: 60 % text posts of 60 to 160 points (one to six lines under a header, in steps of
    /// 20), 40 % photo posts of 280 to 420 points (a header and a photo whose height varies with
    /// its aspect); whole points, a mean of about 206.
    case feed(seed: UInt64)
    /// One height per item, in points, item 0 first; an item outside the list (inserted above, or
    /// past the end) takes the height of the item its number wraps around to.
    case perItem([Double])

    /// The heights a feed draws, in points: text posts and photo posts.
    static let feedRange = 60.0...420.0

    /// The height of item number `item`'s row, in points.
    func height(ofItem item: Int) -> Double {
        switch self {
        case .feed(let seed):
            var random = SplitMix64(seed: seed ^ (UInt64(bitPattern: Int64(item)) &* 0x9E37_79B9_7F4A_7C15) ^ 0x524F_5753)
            if random.nextUnitInterval() < 0.6 {
                // A text post: a 60-point header and up to five more lines of 20 points.
                return 60 + 20 * (random.nextUnitInterval() * 6).rounded(.down)
            }
            // A photo post: a 70-point header and caption over a photo 210 to 350 points high.
            return 70 + (210 + random.nextUnitInterval() * 140).rounded()
        case .perItem(let heights):
            guard !heights.isEmpty else { return 0 }
            let count = heights.count
            return heights[((item % count) + count) % count]
        }
    }

    /// The mean height of items `0..<itemCount`.
    func mean(itemCount: Int) -> Double {
        guard itemCount > 0 else { return 0 }
        return totalHeight(itemCount: itemCount) / Double(itemCount)
    }

    /// The heights of items `0..<itemCount` added up, in item order.
    func totalHeight(itemCount: Int) -> Double {
        if case .perItem(let heights) = self, heights.count == itemCount { return heights.reduce(0, +) }
        var total = 0.0
        for item in 0..<max(itemCount, 0) { total += height(ofItem: item) }
        return total
    }

    /// Checks the heights for a list of `itemCount` rows, naming the first bad value and the rule.
    func validate(itemCount: Int) throws {
        guard case .perItem(let heights) = self else { return }
        guard heights.count == itemCount else {
            throw SimulationError(path: "layout.rowHeights", "has \(heights.count) heights, but the layout has \(itemCount) items; give one height per item")
        }
        if let bad = heights.firstIndex(where: { !($0.isFinite && $0 > 0) }) {
            throw SimulationError(path: "layout.rowHeights[\(bad)]", "\(heights[bad]) must be a finite number greater than 0")
        }
        let total = heights.reduce(0, +)
        guard total.isFinite else {
            throw SimulationError(path: "layout.rowHeights", "the rows add up to \(total) points; the content must have a finite length")
        }
    }
}
