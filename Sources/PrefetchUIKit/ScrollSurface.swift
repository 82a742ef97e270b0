import Foundation
import PrefetchKit

/// The axis a list or grid scrolls along.
public enum ScrollAxis: Sendable, Hashable {
    /// Top to bottom (`contentOffset.y`).
    case vertical
    /// Leading to trailing (`contentOffset.x`).
    case horizontal
}

/// What the prefetcher reads off a scroll view at one moment, along its scroll axis: the values
/// of a frame without its time, and UIKit's two flags in place of
/// its motion.
public struct SurfaceReading: Hashable, Sendable {
    /// The content offset along the axis (`contentOffset.y` for a vertical list).
    public var offset: Double
    /// The viewport's length along the axis (the bounds' height for a vertical list).
    public var viewportLength: Double
    /// The content's length along the axis (`contentSize.height`).
    public var contentLength: Double
    /// The inset before the content (`adjustedContentInset.top`).
    public var leadingInset: Double
    /// The inset after the content (`adjustedContentInset.bottom`).
    public var trailingInset: Double
    /// Whether a finger drags the content (`isDragging`).
    public var isDragging: Bool
    /// Whether the content coasts after a fling (`isDecelerating`).
    public var isDecelerating: Bool
    /// The fraction of its velocity a coasting view keeps per millisecond (`decelerationRate.rawValue`;
    /// UIKit's `.normal`, 0.998, by default).
    public var decelerationRate: Double

    /// Creates a reading.
    public init(offset: Double, viewportLength: Double, contentLength: Double, leadingInset: Double = 0, trailingInset: Double = 0,
                isDragging: Bool = false, isDecelerating: Bool = false,
                decelerationRate: Double = 0.998) {
        self.offset = offset
        self.viewportLength = viewportLength
        self.contentLength = contentLength
        self.leadingInset = leadingInset
        self.trailingInset = trailingInset
        self.isDragging = isDragging
        self.isDecelerating = isDecelerating
        self.decelerationRate = decelerationRate
    }
}

extension SurfaceReading {
    /// A scroll view's values, read along `axis`; `insets` are top, left, bottom, right.
    init(_ axis: ScrollAxis, offset: CGPoint, size: CGSize, content: CGSize, insets: (CGFloat, CGFloat, CGFloat, CGFloat),
         isDragging: Bool, isDecelerating: Bool, decelerationRate: CGFloat) {
        let along = axis == .vertical
        self.init(offset: Double(along ? offset.y : offset.x), viewportLength: Double(along ? size.height : size.width),
                  contentLength: Double(along ? content.height : content.width),
                  leadingInset: Double(along ? insets.0 : insets.1), trailingInset: Double(along ? insets.2 : insets.3),
                  isDragging: isDragging, isDecelerating: isDecelerating, decelerationRate: Double(decelerationRate))
    }
}

/// A scroll view as ``ScrollViewPrefetcher`` sees it.
///
/// This is the whole of what the prefetcher needs from a scroll view: `UICollectionView` and
/// `UITableView` conform in the UIKit bindings (a few lines each); conform your own scrolling
/// view (a custom grid, a headless view in tests) the same way and attach a prefetcher with
/// ``ScrollViewPrefetcher/init(surface:lookup:controller:axis:clock:schedule:)``. Report what UIKit's
/// observers would hear, in UIKit's order: an offset or bounds change, a content-size change, the
/// pan gesture's start and end, the memory warning. Everything that interprets what the surface
/// reports lives in ``ScrollViewPrefetcher`` and runs on every platform.
@MainActor
public protocol ScrollSurface: AnyObject, Sendable {
    /// The scroll view's values now, or `nil` while it is not on screen or not laid out.
    func reading(along axis: ScrollAxis) -> SurfaceReading?
    /// The cells that meet `range` of the axis, with their extents along it, in any order.
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)]
    /// The extent of the cell at `indexPath`, or `nil` when there is none.
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>?
    /// Scrolls with animation so that the viewport's leading edge reaches `offset`.
    func animateScroll(to offset: Double, along axis: ScrollAxis)
    /// Turns the view's own data prefetching off (`prefetchDataSource = nil`).
    func stopDataPrefetching()
    /// Registers the observers; the returned function unregisters them.
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void
    /// Tells VoiceOver that a page scroll landed (`UIAccessibility.Notification.pageScrolled`).
    func announcePageScrolled(_ status: String)
    /// The extent across the axis of the cell at `indexPath` (its frame's `minX..<maxX` in a
    /// vertical list), or `nil` when there is none. The default answers `nil`.
    func crossExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>?
    /// The part across the axis that the section at `section` shows now, in the coordinates of its
    /// cells' frames, when the section scrolls across the axis on its own (an orthogonal section
    /// of a compositional layout: a carousel in a vertical list); `nil` for a section that shows
    /// whatever of it the viewport shows. The default answers `nil`: implement it (with
    /// ``crossExtent(at:along:)``) only for a surface with such sections.
    func visibleCrossExtent(ofSection section: Int, along axis: ScrollAxis) -> Range<Double>?
}

extension ScrollSurface {
    /// No cell extent across the axis: every cell counts by its extent along it.
    public func crossExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { nil }
    /// No section scrolls across the axis on its own.
    public func visibleCrossExtent(ofSection section: Int, along axis: ScrollAxis) -> Range<Double>? { nil }
}

extension ScrollSurface {
    /// ``cells(meeting:along:)`` without the cells that a section scrolling across the axis holds
    /// outside the part it shows (a carousel's cards beyond its edges): along the axis they lie on
    /// screen, but nobody sees them, and nothing observes the carousel's own scrolling to plan them.
    func cellsShown(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        var windows: [Int: Range<Double>?] = [:]
        return cells(meeting: range, along: axis).filter { path, _ in isShown(path, along: axis, windows: &windows) }
    }

    /// ``cellExtent(at:along:)`` for a cell that ``cellsShown(meeting:along:)`` keeps; `nil` for a
    /// cell outside the part its section shows across the axis.
    func shownCellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        var windows: [Int: Range<Double>?] = [:]
        return isShown(indexPath, along: axis, windows: &windows) ? cellExtent(at: indexPath, along: axis) : nil
    }

    /// Whether the cell at `path` lies in the part its section shows across the axis (always, for a
    /// section that does not scroll across it); `windows` caches each section's answer.
    private func isShown(_ path: IndexPath, along axis: ScrollAxis, windows: inout [Int: Range<Double>?]) -> Bool {
        guard path.count == 2 else { return true }
        let window: Range<Double>?
        if let known = windows[path[0]] {
            window = known
        } else {
            window = visibleCrossExtent(ofSection: path[0], along: axis)
            windows[path[0]] = .some(window)
        }
        guard let window, let across = crossExtent(at: path, along: axis) else { return true }
        return across.overlaps(window)
    }
}

/// What a surface's observers report, as they hear it (on the main thread, in UIKit): a surface
/// calls these from ``ScrollSurface/observeScrolling(_:)``'s registrations.
public struct SurfaceEvents: Sendable {
    /// The offset, the bounds or (`layoutChanged`) the content size changed.
    public var changed: @Sendable (_ layoutChanged: Bool) -> Void
    /// The pan gesture began.
    public var dragBegan: @Sendable () -> Void
    /// The pan gesture ended, with the finger's velocity in points per second (the content moves
    /// against the finger).
    public var dragEnded: @Sendable (_ fingerVelocity: CGPoint) -> Void
    /// The system warned that memory runs short (`UIApplication.didReceiveMemoryWarningNotification`).
    public var memoryWarning: @Sendable () -> Void

    /// Creates the events a prefetcher listens to.
    public init(changed: @escaping @Sendable (_ layoutChanged: Bool) -> Void, dragBegan: @escaping @Sendable () -> Void,
                dragEnded: @escaping @Sendable (_ fingerVelocity: CGPoint) -> Void, memoryWarning: @escaping @Sendable () -> Void = {}) {
        self.changed = changed
        self.dragBegan = dragBegan
        self.dragEnded = dragEnded
        self.memoryWarning = memoryWarning
    }
}

/// A diffable data source's two O(1) questions: `UICollectionViewDiffableDataSource` and
/// `UITableViewDiffableDataSource` conform as they are.
@MainActor
protocol DiffableItems<Item>: AnyObject {
    associatedtype Item
    func itemIdentifier(for indexPath: IndexPath) -> Item?
    func indexPath(for itemIdentifier: Item) -> IndexPath?
}

/// A lookup over a diffable data source, asked where the controller runs.
@MainActor
func diffableLookup<Source: DiffableItems>(_ source: Source) -> ItemLookup<Source.Item> where Source.Item: Hashable & Sendable {
    mainActorLookup({ [weak source] in source?.itemIdentifier(for: $0) }, { [weak source] in source?.indexPath(for: $0) })
}

/// Where a page scroll landed, for VoiceOver's status: the page whose leading edge is nearest the
/// offset, and how many pages of `step` points the scrollable range holds.
///
/// A step that is not positive counts as one point; the counts stop at a million pages.
func pagePosition(offset: Double, range: ClosedRange<Double>, step: Double) -> (page: Int, count: Int) {
    let step = step.isFinite && step >= 1 ? step : 1
    func whole(_ value: Double) -> Int { value.isFinite ? Int(min(max(value, 0), 1_000_000)) : 0 }
    let count = whole(((range.upperBound - range.lowerBound) / step).rounded(.up)) + 1
    let page = min(count, whole(((offset - range.lowerBound) / step).rounded()) + 1)
    return (page, count)
}

/// A lookup over two questions a data source answers on the main actor (a diffable data
/// source's `itemIdentifier(for:)` and `indexPath(for:)`), asked where the controller runs.
func mainActorLookup<Item: Hashable & Sendable>(_ item: @escaping @MainActor (IndexPath) -> Item?,
                                                        _ path: @escaping @MainActor (Item) -> IndexPath?) -> ItemLookup<Item> {
    ItemLookup(item: { index in MainActor.assumeIsolated { item(index) } }, indexPath: { id in MainActor.assumeIsolated { path(id) } })
}

extension ScrollAxis {
    /// The other axis: the one a carousel in a list along this one scrolls along.
    var across: ScrollAxis { self == .vertical ? .horizontal : .vertical }
}

/// A cell's extent along the axis, or `nil` for an empty frame (UIKit's answer for no cell).
func axisExtent(_ rect: CGRect, _ axis: ScrollAxis) -> Range<Double>? {
    rect.isEmpty ? nil : axis == .vertical ? Double(rect.minY)..<Double(rect.maxY) : Double(rect.minX)..<Double(rect.maxX)
}

/// The band of content coordinates a range of the axis covers, as wide as any layout.
func axisBand(_ range: Range<Double>, _ axis: ScrollAxis) -> CGRect {
    let (start, length) = (CGFloat(range.lowerBound), CGFloat(range.upperBound - range.lowerBound))
    return axis == .vertical ? CGRect(x: -1e7, y: start, width: 2e7, height: length) : CGRect(x: start, y: -1e7, width: length, height: 2e7)
}
