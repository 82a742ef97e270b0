import Foundation
import PrefetchKit

/// The engine ``CollectionView`` and ``TableView`` share: geometry, frame-driven scrolling,
/// cell reuse and the prefetch contract. You use it through those two classes.
///
/// The view is headless and driven by explicit time: nothing moves until you call
/// ``step(to:)`` with a timestamp in seconds, so the same view runs on real time (a display
/// link, a terminal loop) and on virtual time (tests, a simulator). Each step advances the
/// scroll physics, then runs one layout pass that updates the visible cells, runs the view's
/// `PrefetchController` (which decides what to load and how urgently), and updates the
/// prepared cells. See <doc:PrefetchContract>.
///
/// Scrolling is vertical only: `contentOffset.x` stays at `-contentInset.left`.
@MainActor
public class ItemScrollView {
    // MARK: Configuration

    var layoutObject: any CollectionLayout
    var size: CGSize

    /// The view's frame; only its size matters to a headless view.
    ///
    /// A zero width or height is allowed (the view then shows and prefetches nothing); negative or
    /// non-finite sizes trap with a message naming the size.
    public var frame: CGRect {
        get { CGRect(origin: .zero, size: size) }
        set {
            Self.checkSize(newValue.size)
            guard newValue.size != size else { return }
            size = newValue.size
            needsLayoutPreparation = true
            if hasLaidOut { layoutIfNeeded() }
        }
    }

    /// The visible part of the content: the content offset and the view's size.
    public var bounds: CGRect { CGRect(origin: contentOffsetStorage, size: size) }

    var contentOffsetStorage = CGPoint.zero

    /// The point of the content at the view's top-left corner.
    ///
    /// Setting it stops any scrolling, clamps the offset to the content and runs a layout pass.
    /// Non-finite values trap with a message naming the value.
    public var contentOffset: CGPoint {
        get { contentOffsetStorage }
        set { setContentOffset(newValue, animated: false) }
    }

    /// Space around the content that the content can scroll into, like `UIScrollView.contentInset`.
    public var contentInset: ContentInsets = .zero {
        didSet {
            precondition(contentInset.isFinite, "contentInset \(contentInset) must be finite")
            needsLayoutPreparation = true
            if hasLaidOut { layoutIfNeeded() }
        }
    }

    /// The size of the content, from the layout.
    public var contentSize: CGSize { layoutObject.contentSize }

    /// Whether the view works ahead of display: it prepares cells (calls `cellForItemAt`) for
    /// items about to appear, and sends prefetch callbacks. `true` by default.
    ///
    /// Setting it to `false` also turns off data prefetching: items pending prefetch are cancelled
    /// at the next layout pass.
    public var isPrefetchingEnabled = true {
        didSet { if hasLaidOut && oldValue != isPrefetchingEnabled { layoutIfNeeded() } }
    }

    /// The policy that chooses where to prefetch; `PrefetchPolicies/uikitLike` by default.
    ///
    /// The view's `PrefetchController` asks it for regions every frame and ranks their items;
    /// the latency it plans with comes from a prioritized prefetch data source (see
    /// ``CollectionViewDataSourcePrioritizedPrefetching``), or the policy's own fallback.
    public var prefetchPolicy: any PrefetchPolicy {
        get { controller.policy }
        set { controller.policy = newValue }
    }

    /// How quickly a fling slows down; ``DecelerationRate/normal`` (0.998 per ms) by default.
    public var decelerationRate: DecelerationRate = .normal

    /// How far ahead of the viewport, in points, the view prepares cells while scrolling; nil
    /// (the default) means half the view's height. Prepared cells within this distance on either
    /// side of the viewport are kept; farther ones go back to the reuse pool.
    public var cellPreparationDistance: Double? {
        didSet {
            if let distance = cellPreparationDistance {
                precondition(distance.isFinite && distance >= 0, "cellPreparationDistance \(distance) must be a finite number, at least 0")
            }
        }
    }

    /// Called with every callback the view makes, just before it makes it.
    public var onEvent: ((ItemViewEvent) -> Void)?

    // MARK: Scroll state

    /// The time of the last ``step(to:)``, in seconds.
    public private(set) var currentTime: Double = 0

    /// The scroll velocity, in points per second; positive toward the end of the content.
    public private(set) var velocity: Double = 0

    /// The direction of travel, from ``velocity``.
    public var scrollDirection: ScrollDirection {
        velocity > 0 ? .forward : (velocity < 0 ? .backward : .none)
    }

    /// Whether a drag is in progress (``drag(by:)`` until ``endDragging()``, ``fling(velocity:)``
    /// or ``stopScrolling()``).
    public var isDragging: Bool { if case .dragging = motion { true } else { false } }

    /// Whether the view is coasting after a fling.
    public var isDecelerating: Bool { if case .decelerating = motion { true } else { false } }

    /// Whether an animated ``setContentOffset(_:animated:)`` or ``scrollToItem(at:at:animated:)`` is running.
    public var isScrollAnimating: Bool { if case .animating = motion { true } else { false } }

    var motion: Motion = .idle
    var pendingDrag = 0.0
    var hasStepped = false

    // MARK: Prefetch state

    /// Decides what to load and how urgently, every layout pass.
    let controller = PrefetchController<IndexPath>()
    /// The controller's target: turns its decisions into the prefetch data source's callbacks.
    let prefetchBridge = PrefetchBridge()
    /// The data source, delegate and prefetch data source, as the subclass speaks to them.
    weak var host: (any ItemViewHost)?
    /// How the subclass names its items in messages.
    let names: ItemNames

    // MARK: Item state

    /// Number of items per section, as the view last read them from the data source.
    var counts: [Int] = []
    /// Cells the view holds: the displayed ones and the prepared ones.
    var cells: [IndexPath: ReusableCell] = [:]
    /// Items whose cells are on screen.
    var displayed: Set<IndexPath> = []
    /// Items sent to `prefetchItemsAt`, not since cancelled or displayed.
    var pendingPrefetch: Set<IndexPath> = []
    /// How many items the prefetch window held last frame, to size this frame's table.
    var lastWantedCount = 0
    var pool = ReusePool()
    var registry: [String: ReusableCell.Type] = [:]

    var needsReload = true
    var needsLayoutPreparation = true
    var isInLayoutPass = false
    var batchUpdate: BatchUpdate?
    var hasLaidOut = false

    init(frame: CGRect, layout: any CollectionLayout, names: ItemNames) {
        Self.checkSize(frame.size)
        self.size = frame.size
        self.layoutObject = layout
        self.names = names
        prefetchBridge.view = self
    }

    static func checkSize(_ size: CGSize) {
        precondition(
            size.width.isFinite && size.height.isFinite && size.width >= 0 && size.height >= 0,
            "view size \(size.width)×\(size.height) must have finite width and height, at least 0"
        )
    }

    func emit(_ kind: ItemViewEvent.Kind, _ indexPath: IndexPath) {
        onEvent?(ItemViewEvent(time: currentTime, kind: kind, indexPath: indexPath))
    }

    // MARK: Data

    /// Discards every cell and the prefetch state, and reads the data source again at the next
    /// layout pass (the next ``step(to:)`` or ``layoutIfNeeded()``), as UIKit does.
    ///
    /// Displayed cells get `didEndDisplaying` with their old index paths; pending prefetches are
    /// forgotten without cancel callbacks, so items may be prefetched again. A prioritized
    /// prefetch data source gets every item it was asked for as removed, with the next frame's plan.
    public func reloadData() {
        needsReload = true
    }

    /// The number of sections, as the view last read it from the data source.
    public var numberOfSections: Int {
        if needsReload { prepareData() }
        return counts.count
    }

    func numberOfItemsStored(inSection section: Int) -> Int {
        if needsReload { prepareData() }
        precondition(section >= 0 && section < counts.count, "section \(section) is out of range: the view has \(counts.count) sections")
        return counts[section]
    }

    func checkedIndexPath(_ indexPath: IndexPath, in function: String) throws {
        if needsReload { prepareData() }
        guard indexPath.count == 2 else {
            throw PrefetchError(.invalidArgument, "\(function): index path \(indexPath) must have exactly 2 indexes ([section, \(names.noun)])")
        }
        guard indexPath[0] >= 0, indexPath[0] < counts.count else {
            throw PrefetchError(.invalidArgument, "\(function): index path \(indexPath) is out of range: the view has \(counts.count) sections")
        }
        guard indexPath[1] >= 0, indexPath[1] < counts[indexPath[0]] else {
            throw PrefetchError(.invalidArgument, "\(function): index path \(indexPath) is out of range: section \(indexPath[0]) has \(counts[indexPath[0]]) \(names.noun)s")
        }
    }

    // MARK: Cells

    func register(_ cellClass: ReusableCell.Type, identifier: String) {
        registry[identifier] = cellClass
    }

    func dequeue(identifier: String, for indexPath: IndexPath) -> ReusableCell {
        let cell: ReusableCell
        if let reused = pool.dequeue(identifier) {
            cell = reused
            cell.prepareForReuse()
        } else {
            guard let cellClass = registry[identifier] else {
                preconditionFailure("no cell class is registered for reuse identifier \"\(identifier)\" (dequeued for \(indexPath)); call register(_:for…ReuseIdentifier:) first")
            }
            cell = cellClass.init()
            cell.reuseIdentifier = identifier
            cell.owner = self
        }
        cell.state = .dequeued
        cell.indexPath = indexPath
        return cell
    }

    /// Asks the data source for the cell of `indexPath` and takes it into use.
    func requestCell(_ indexPath: IndexPath, frame: CGRect) -> ReusableCell {
        emit(.cellRequest, indexPath)
        guard let cell = host?.hostCell(at: indexPath) else {
            preconditionFailure("the view has no data source but needs a cell for \(indexPath)")
        }
        precondition(
            cell.owner === self && cell.state == .dequeued,
            "the data source returned a cell for \(indexPath) that was not dequeued from this view with dequeueReusableCell(withReuseIdentifier:for:), or was returned twice"
        )
        cell.state = .inUse
        cell.indexPath = indexPath
        cell.frame = frame
        cells[indexPath] = cell
        return cell
    }

    func recycle(_ cell: ReusableCell) {
        cell.state = .pooled
        cell.indexPath = nil
        cell.isDisplayed = false
        pool.enqueue(cell)
    }

    /// The displayed cell of the item at `indexPath`, or nil when the item is not on screen.
    ///
    /// Returns nil for index paths out of range (after a deletion, an async completion may ask
    /// about an item that no longer exists, as in UIKit); traps for index paths that do not
    /// have exactly two non-negative indexes.
    func displayedCell(at indexPath: IndexPath) -> ReusableCell? {
        precondition(
            indexPath.count == 2 && indexPath[0] >= 0 && indexPath[1] >= 0,
            "index path \(indexPath) must have exactly 2 non-negative indexes ([section, \(names.noun)])"
        )
        guard displayed.contains(indexPath) else { return nil }
        return cells[indexPath]
    }

    /// The index paths of the items on screen, in index path order.
    ///
    /// - Complexity: O(v log v) for v visible items.
    var sortedDisplayed: [IndexPath] { displayed.sorted() }

    /// The items sent to the prefetch data source and not since cancelled or displayed, in
    /// index path order.
    ///
    /// - Complexity: O(p log p) for p pending items.
    public var indexPathsPendingPrefetch: [IndexPath] { pendingPrefetch.sorted() }

    /// The items whose cells the view holds but does not display (prepared ahead), in index path order.
    ///
    /// - Complexity: O(c log c) for c held cells.
    public var indexPathsForPreparedItems: [IndexPath] {
        cells.keys.filter { !displayed.contains($0) }.sorted()
    }

    /// The number of cells in the reuse pool, over all identifiers.
    public var reusePoolCount: Int { pool.count }

    // MARK: Scrolling

    /// The range the content offset's `y` may take: from `-contentInset.top` to the content's end.
    public var contentOffsetRange: ClosedRange<Double> {
        let minimum = -contentInset.top
        let maximum = max(minimum, contentSize.height + contentInset.bottom - size.height)
        return minimum...maximum
    }

    func clampedOffset(_ y: Double) -> CGPoint {
        let range = contentOffsetRange
        return CGPoint(x: -contentInset.left, y: min(max(y, range.lowerBound), range.upperBound))
    }

    /// Moves the content to `offset`, at once or animated over the next frames (0.3 s, ease-out).
    ///
    /// The offset is clamped to the content. Without animation the view stops any scrolling and
    /// runs a layout pass at once (a jump: items may appear without having been prefetched).
    /// With animation it runs a layout pass at once too, which tells its `PrefetchController`
    /// the destination (`MotionPhase.programmatic`), so the destination's cells load first.
    /// Non-finite values trap with a message naming the value. Before the first layout pass the
    /// offset is only stored, and used by that pass.
    public func setContentOffset(_ offset: CGPoint, animated: Bool) {
        precondition(offset.x.isFinite && offset.y.isFinite, "content offset (\(offset.x), \(offset.y)) must be finite")
        if animated {
            if needsReload || needsLayoutPreparation { prepareData() }
            let target = clampedOffset(offset.y).y
            motion = .animating(startTime: currentTime, from: contentOffsetStorage.y, to: target, duration: scrollAnimationDuration)
            if hasLaidOut { layoutIfNeeded() }
        } else {
            motion = .idle
            velocity = 0
            pendingDrag = 0
            contentOffsetStorage = CGPoint(x: -contentInset.left, y: offset.y)
            if hasLaidOut { layoutIfNeeded() }
        }
    }

    /// Scrolls so that the item at `indexPath` is at `position` in the viewport.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) naming the index path when it is
    ///   out of range.
    public func scrollToItem(at indexPath: IndexPath, at position: ScrollPosition, animated: Bool) throws {
        try checkedIndexPath(indexPath, in: names.scrollFunction)
        if needsReload || needsLayoutPreparation { prepareData() }
        guard let frame = layoutObject.frameForItem(at: indexPath) else {
            throw PrefetchError(.invalidArgument, "the layout has no frame for \(indexPath)")
        }
        let top = contentOffsetStorage.y
        let height = size.height
        let y: Double
        switch position {
        case .top: y = frame.minY - contentInset.top
        case .centeredVertically: y = frame.midY - height / 2
        case .bottom: y = frame.maxY - height + contentInset.bottom
        case .nearest:
            if frame.minY < top + contentInset.top { y = frame.minY - contentInset.top }
            else if frame.maxY > top + height - contentInset.bottom { y = frame.maxY - height + contentInset.bottom }
            else { y = top }
        }
        setContentOffset(CGPoint(x: -contentInset.left, y: y), animated: animated)
    }

    /// Moves the content by `delta` points at the next ``step(to:)``, as a finger drag does;
    /// positive `delta` moves toward the end of the content (the content offset grows).
    ///
    /// Starts a drag if none is in progress, stopping any fling or animation. While dragging,
    /// each step sets ``velocity`` to the distance dragged since the last step over the time
    /// elapsed. Non-finite deltas trap.
    public func drag(by delta: Double) {
        precondition(delta.isFinite, "drag(by:) delta \(delta) must be finite")
        if !isDragging {
            motion = .dragging
            pendingDrag = 0
        }
        pendingDrag += delta
    }

    /// Ends a drag without a fling: the view comes to rest where it is.
    public func endDragging() {
        motion = .idle
        velocity = 0
        pendingDrag = 0
    }

    /// Releases the content at `velocity` points per second (positive toward the end), after
    /// which it coasts with UIKit's deceleration (PrefetchKit's `Deceleration`): `v(t) = velocity · rate^(t in ms)`.
    ///
    /// The fling stops when the speed falls below 1 point per second or the offset reaches an
    /// end of the content (no bounce). Non-finite velocities trap.
    public func fling(velocity: Double) {
        precondition(velocity.isFinite, "fling(velocity:) velocity \(velocity) must be finite")
        contentOffsetStorage.y += pendingDrag
        contentOffsetStorage = clampedOffset(contentOffsetStorage.y)
        pendingDrag = 0
        guard abs(velocity) >= restingSpeed else {
            endDragging()
            return
        }
        motion = .decelerating(startTime: currentTime, startOffset: contentOffsetStorage.y, velocity: velocity, rate: decelerationRate)
        self.velocity = velocity
    }

    /// Stops any drag, fling or animation; the content stays where it is.
    public func stopScrolling() {
        endDragging()
    }

    /// Advances to `timestamp` (in seconds): moves the content by the scroll physics, then runs
    /// one layout pass.
    ///
    /// Timestamps must be finite and never go back; the first step sets the view's clock
    /// without moving the content.
    ///
    /// - Complexity: O(v + p + c) for v visible items, p items in the prefetch window and c
    ///   changed items, plus the layout's query cost; independent of the number of items.
    public func step(to timestamp: Double) {
        precondition(timestamp.isFinite, "step(to:) timestamp \(timestamp) must be finite")
        precondition(
            !hasStepped || timestamp >= currentTime,
            "step(to:) timestamp \(timestamp) is earlier than the view's current time \(currentTime)"
        )
        let elapsed = hasStepped ? timestamp - currentTime : 0
        hasStepped = true
        currentTime = timestamp
        if needsReload || needsLayoutPreparation { prepareData() }
        advancePhysics(elapsed: elapsed)
        layoutIfNeeded()
    }

    private func advancePhysics(elapsed: Double) {
        switch motion {
        case .idle:
            velocity = 0
        case .dragging:
            let delta = pendingDrag
            pendingDrag = 0
            if elapsed > 0 { velocity = delta / elapsed } else if delta != 0 { velocity = delta > 0 ? restingSpeed : -restingSpeed }
            contentOffsetStorage = clampedOffset(contentOffsetStorage.y + delta)
        case let .decelerating(startTime, startOffset, initial, rate):
            let milliseconds = (currentTime - startTime) * 1000
            let current = Deceleration.velocity(from: initial, afterMilliseconds: milliseconds, rate: rate.rawValue)
            let target = startOffset + rate.distance(from: initial, after: milliseconds)
            let clamped = clampedOffset(target)
            contentOffsetStorage = clamped
            if abs(current) < restingSpeed || clamped.y != target {
                motion = .idle
                velocity = 0
            } else {
                velocity = current
            }
        case let .animating(startTime, from, to, duration):
            let progress = min(1, max(0, (currentTime - startTime) / duration))
            let remaining = 1 - progress
            contentOffsetStorage = clampedOffset(from + (to - from) * (1 - remaining * remaining * remaining))
            if progress >= 1 {
                motion = .idle
                velocity = 0
            } else {
                velocity = (to - from) * 3 * remaining * remaining / duration
            }
        }
    }

    /// The frame the view gives its `PrefetchController` now: time, viewport, content length,
    /// velocity, and the phase with a fling's resting offset or an animation's destination.
    public var scrollState: ScrollState {
        let offset = contentOffsetStorage.y
        let phase: MotionPhase
        switch motion {
        case .idle:
            phase = .idle
        case .dragging:
            phase = .dragging
        case let .decelerating(_, startOffset, initial, rate):
            phase = .decelerating(restingOffset: clampedOffset(startOffset + rate.restingDistance(from: initial)).y, rate: rate.rawValue)
        case let .animating(startTime, _, to, duration):
            phase = .programmatic(targetOffset: to, duration: max(0, startTime + duration - currentTime))
        }
        return ScrollState(
            time: currentTime, viewport: offset..<(offset + size.height), contentLength: contentSize.height,
            velocity: velocity, phase: phase)
    }
}

/// Cells waiting for reuse, by reuse identifier.
@MainActor
struct ReusePool {
    private var cells: [String: [ReusableCell]] = [:]
    private(set) var count = 0

    mutating func dequeue(_ identifier: String) -> ReusableCell? {
        guard let cell = cells[identifier]?.popLast() else { return nil }
        count -= 1
        return cell
    }

    mutating func enqueue(_ cell: ReusableCell) {
        cells[cell.reuseIdentifier ?? "", default: []].append(cell)
        count += 1
    }

    var all: [ReusableCell] { cells.values.flatMap { $0 } }
}
