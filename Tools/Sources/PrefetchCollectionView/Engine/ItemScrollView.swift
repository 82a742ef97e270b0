import Foundation
import PrefetchKit
import PrefetchUIKit
import PrefetchTesting

/// The engine ``CollectionView`` and ``TableView`` share: geometry, frame-driven scrolling,
/// cell reuse and the prefetch contract. You use it through those two classes.
///
/// The view is headless and driven by explicit time: nothing moves until you call
/// ``step(to:)`` with a timestamp in seconds, so the same view runs on real time (a display
/// link, a terminal loop) and on virtual time (tests, a simulator). Each step advances the
/// scroll physics, then runs one layout pass that updates the visible cells, runs the view's
/// prefetch planner (the one inside `PrefetchController`, which decides what to load and how urgently), and updates the
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
            layoutChanged()
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
            layoutChanged()
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
        didSet { if state.laysOutOnChange && oldValue != isPrefetchingEnabled { layoutIfNeeded() } }
    }

    /// The policy that chooses where to prefetch; `PrefetchPolicies/uikitLike` by default.
    ///
    /// The view's prefetch planner asks it for regions every frame and ranks their items;
    /// the latency it plans with comes from a prioritized prefetch data source (see
    /// ``CollectionViewDataSourcePrioritizedPrefetching``), or the policy's own fallback.
    public var prefetchPolicy: any PrefetchPolicy {
        get { controller.policy }
        set { controller.policy = newValue }
    }

    /// The network's conditions the view's planner prefetches under (as
    /// `PrefetchController.networkConditions`); normal by default. Takes effect at the next pass.
    public var networkConditions: NetworkConditions {
        get { controller.networkConditions }
        set { controller.networkConditions = newValue }
    }

    /// How quickly a fling slows down; ``DecelerationRate/normal`` (0.998 per ms) by default.
    public var decelerationRate: DecelerationRate = .normal

    /// How far ahead of the viewport, in points, the view prepares cells while scrolling; nil
    /// (the default) means half the view's height. Prepared cells within this distance on either
    /// side of the viewport are kept; farther ones go back to the reuse pool.
    package var cellPreparationDistance: Double? {
        didSet {
            if let distance = cellPreparationDistance {
                precondition(distance.isFinite && distance >= 0, "cellPreparationDistance \(distance) must be a finite number, at least 0")
            }
        }
    }

    /// Called with every callback the view makes, just before it makes it.
    package var onEvent: ((ItemViewEvent) -> Void)?

    // MARK: State

    /// Where the view is in its frame cycle: the work its next pass must redo, its passes, its clock.
    var state = EngineState()
    /// The changes recorded by the `performBatchUpdates` call under way.
    var batchUpdate: BatchUpdate?

    /// The time of the last ``step(to:)``, in seconds; 0 before the first.
    package var currentTime: Double { state.clock ?? 0 }
    /// The view's time as a clock, at ``step(to:)``'s timestamp (seconds from 0): the clock a
    /// prefetcher on this view reads, as an app's reads the continuous clock.
    public let clock = ManualClock()

    /// The scroll velocity, in points per second; positive toward the end of the content.
    public internal(set) var velocity: Double = 0
    var motion: Motion = .idle
    var pendingDrag = 0.0
    /// Where the finger has dragged the content to, past an end included, while ``bounces`` lets
    /// the view rubber-band (`nil` outside a drag).
    var rawDragOffset: Double?

    /// Whether a drag past either end of the content rubber-bands and springs back when the
    /// finger lifts, as `UIScrollView.bounces` (whose default is `true`); `false` by default here,
    /// where the content offset stays in the content, as it always did. A fling still stops at an
    /// end without overshooting.
    public var bounces = false

    // MARK: Prefetch state

    /// Decides what to load and how urgently, updated by every layout pass: the same
    /// `PrefetchController` an app's prefetcher drives.
    var controller = PrefetchController<IndexPath>(policy: PrefetchPolicies.uikitLike)
    /// The controller's target: holds its decisions until the pass delivers them.
    let prefetchTarget = ViewPrefetchTarget()
    /// The scroll observer (an app's `ScrollViewPrefetcher`), with its registration.
    var scrollObserver: (token: ScrollObserverToken, events: SurfaceEvents)?
    /// What the scroll observer last heard.
    var lastNotified: NotifiedGeometry?
    /// Whether the layout's content size changed since the observer last heard.
    var contentSizeChangePending = false
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
    var pool = ReusePool()
    var registry: [String: ReusableCell.Type] = [:]

    init(frame: CGRect, layout: any CollectionLayout, names: ItemNames) {
        Self.checkSize(frame.size)
        self.size = frame.size
        self.layoutObject = layout
        self.names = names
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

    /// The layout must be prepared again (new size, insets or layout): lays the view out now
    /// once it has laid out, else at its first pass.
    func layoutChanged() {
        state.invalidate(.layout)
        if state.laysOutOnChange { layoutIfNeeded() }
    }

    /// Forgets the prefetch state without cancels: the prefetch data source changed.
    func prefetchDataSourceChanged() {
        pendingPrefetch.removeAll()
        controller.withdrawAll()
        _ = prefetchTarget.take()   // forgotten without cancels, as UIKit forgets them
    }

    // MARK: Time

    /// Advances to `timestamp` (in seconds): moves the content by the scroll physics, then runs
    /// one layout pass.
    ///
    /// Timestamps must be finite and never go back; the first step sets the view's clock
    /// without moving the content.
    ///
    /// - Complexity: O(v + p + c) for v visible items, p items in the prefetch window and c
    ///   changed items, plus the layout's query cost; independent of the number of items.
    public func step(to timestamp: Double) {
        let elapsed = state.advanceClock(to: timestamp)
        clock.advance(to: ManualClock.Instant(offset: .seconds(timestamp)))
        prepareData()
        advancePhysics(elapsed: elapsed)
        notifyScrollObserver()   // UIKit's offset observer hears a step before the layout pass
        layoutIfNeeded()
    }

    // MARK: Data

    /// Discards every cell and the prefetch state, and reads the data source again at the next
    /// layout pass (the next ``step(to:)`` or ``layoutIfNeeded()``), as UIKit does.
    ///
    /// Displayed cells get `didEndDisplaying` with their old index paths; pending prefetches are
    /// forgotten without cancel callbacks, so items may be prefetched again. A prioritized
    /// prefetch data source gets every item it was asked for as removed, with the next frame's plan.
    public func reloadData() {
        state.invalidate(.reload)
    }

    /// The number of sections, as the view last read it from the data source.
    public var numberOfSections: Int { currentCounts().count }

    /// The counts, after reading the data source (and preparing the layout) when a reload is due.
    func currentCounts() -> [Int] {
        if state.work == .reload { prepareData() }
        return counts
    }

    func numberOfItemsStored(inSection section: Int) -> Int {
        let counts = currentCounts()
        precondition(section >= 0 && section < counts.count, "section \(section) is out of range: the view has \(counts.count) sections")
        return counts[section]
    }

    func checkedIndexPath(_ indexPath: IndexPath, in function: String) throws {
        let counts = currentCounts()
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

    /// The frame of the item at `indexPath` in content coordinates, or nil when there is none.
    package func frameForItem(at indexPath: IndexPath) -> CGRect? {
        prepareData()
        return layoutObject.frameForItem(at: indexPath)
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

    /// The cells on screen, in index path order.
    public var visibleCells: [ReusableCell] { sortedDisplayed.compactMap { cells[$0] } }

    /// The index path of a held (displayed or prepared) cell; nil for a cell of another view or
    /// one in the reuse pool.
    public func indexPath(for cell: ReusableCell) -> IndexPath? {
        cell.owner === self && cell.state == .inUse ? cell.indexPath : nil
    }

    /// The items sent to the prefetch data source and not since cancelled or displayed, in
    /// index path order.
    ///
    /// - Complexity: O(p log p) for p pending items.
    public var indexPathsPendingPrefetch: [IndexPath] { pendingPrefetch.sorted() }

    /// The items whose cells the view holds but does not display (prepared ahead), in index path order.
    ///
    /// - Complexity: O(c log c) for c held cells.
    package var indexPathsForPreparedItems: [IndexPath] {
        cells.keys.filter { !displayed.contains($0) }.sorted()
    }

    /// The number of cells in the reuse pool, over all identifiers.
    package var reusePoolCount: Int { pool.count }
}
