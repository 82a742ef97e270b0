import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchUIKit

/// Apple's sample's `CustomDataSource` over an `AsyncFetcher`, for a grid or a list: the one app
/// of the simulator, the demo and the fault soak.
///
/// `cellForItemAt` shows cached data or adds a consumer, at the priority the view's controller
/// gives the item, whose completion hops to the main actor (through `deliveries`, which a
/// virtual-time driver waits for) and fills the cell only if it still represents the item. A
/// cell withdraws its consumer when it leaves the screen (and asks again if it comes back
/// without its data) or goes back to the reuse pool: ``step(to:)`` withdraws the consumers of
/// pooled cells in item order, so which loads stay alive never depends on the pool's order. The
/// app prefetches as an iOS app does: a `ScrollViewPrefetcher` attached to the view hears its
/// scroll callbacks and drives a `PrefetchController` whose target is the fetcher's
/// (`AsyncFetcher.prefetchTarget(identifier:expectedBytes:)`); every cell asks the prefetcher's
/// `priority(at:)`; after ``use(_:)`` with ``Toolkit/swiftui``, a `ListPrefetcher` fed what
/// SwiftUI reports replaces it, and every cell asks its controller. An item whose identifier is
/// not known yet (a feed's page that has not arrived) shows a placeholder until
/// ``fillPlaceholders()``.
///
/// ```swift
/// import PrefetchKit
/// import PrefetchSimulation
///
/// let fetcher = try AsyncFetcher<Int, String> { id in "item \(id)" }
/// let app = try SampleApp(layout: .grid(itemCount: 100), viewport: .seedGrid, fetcher: fetcher,
///                         meter: ReadinessMeter(now: { 0 }), identifier: { $0 })
/// app.step(to: 0)            // the first screen: cells ask for their data
/// ```
@MainActor
public final class SampleApp<ID: Hashable & Sendable, Value: Sendable>: AppActions {
    /// The grid or the list.
    let surface: any SampleSurface
    /// The fetcher the cells and the prefetcher use.
    public let fetcher: AsyncFetcher<ID, Value>
    /// Measures what the user sees.
    public let meter: ReadinessMeter
    /// The number of items now.
    var itemCount: Int
    /// What to add to a view index to get the item's stable number (its data's index in the
    /// original list): 0 until items are inserted or deleted above (``insertAbove(count:)``), then
    /// negative after inserts (the new items get numbers below 0) and positive after deletes. The
    /// prefetcher's items, the cells' ``SampleCellContent/item``, the identifiers asked for and
    /// the meter all use stable numbers, as an app's diffable data source uses item identifiers.
    public internal(set) var indexBase = 0
    /// Called with the item of each cell that comes on screen.
    var onAppear: ((Int) -> Void)?
    /// The view's data source and delegate.
    private var callbacks: SampleCallbacks<ID, Value>?
    let deliveries: MainActorDeliveries<ID>
    /// The identifier of an item, nil while unknown.
    let identifier: (Int) -> ID?
    /// The priority every cell asks at instead of the controller's rank (a peer's run: `visible`).
    var fixedPriority: FetchPriority?
    /// The app's prefetcher, attached to the view as an iOS app attaches one to its
    /// `UICollectionView`; nil once detached (a peer's run uses the view's own prefetching).
    private(set) var prefetcher: ScrollViewPrefetcher<IndexPath>?
    /// The fetcher's prefetch target, which the prefetcher's controller sends its plan to.
    let prefetchTarget: any PrefetchTarget<IndexPath>
    /// An item's payload size by item number, as the feed says (nil: the feed says nothing).
    let expectedBytes: ((Int) -> Int?)?
    /// With the SwiftUI toolkit (``use(_:)``): the list prefetcher that replaces ``prefetcher``.
    private(set) var listFeed: ListFeed<ID, Value>?
    /// With previews: how the prefetcher's controller allots bytes; cells then show a preview
    /// first and the meter counts previews. `nil` (the default): full values only.
    var previewPlan: PreviewPlan? {
        didSet {
            prefetcher?.controller.previews = previewPlan
            listFeed?.controller.previews = previewPlan
            if previewPlan != nil { meter.countPreviews() }
        }
    }
    /// Actions the prefetcher scheduled (its quiet-time checks), due on the view's clock.
    var timers: [(due: Double, action: @MainActor () -> Void)] = []
    /// The problems the prefetcher reported (a bad reading, a stale index path), for tests; none in a sound run.
    private(set) var prefetchProblems: [PrefetchError] = []
    /// Cells holding a consumer, with their item.
    var holders: [ObjectIdentifier: (cell: any SampleCell<ID, Value>, item: Int)] = [:]
    /// Cells showing a placeholder, by item.
    var placeholders: [Int: any SampleCell<ID, Value>] = [:]
    /// Every cell the app has configured, for tests to inspect.
    var cells: [ObjectIdentifier: any SampleCell<ID, Value>] = [:]
    /// Whether an animated scroll the app started runs (its end is forwarded to the prefetcher).
    var scrollAnimationRunning = false
    /// A list's rows of different heights (by item number), which the app gives the view from
    /// `heightForRowAt`; nil: the view's one row height.
    let rowHeights: RowHeights?
    /// With ``rowHeights``: the typical row, what a SwiftUI app estimates a row it has not laid out
    /// to be (``ScenarioLayout/itemHeight``).
    let typicalRowHeight: Double

    /// The view of `layout` in `viewport`, filled with `itemCount` items (the layout's by default),
    /// the identifier of each from `identifier` (nil while unknown), from `fetcher`.
    /// - Throws: ``SimulationError`` naming a value of the layout or the viewport out of range.
    public convenience init(
        layout: ScenarioLayout, viewport: Viewport, itemCount: Int? = nil, fetcher: AsyncFetcher<ID, Value>, meter: ReadinessMeter,
        identifier: @escaping (Int) -> ID?
    ) throws {
        self.init(view: try layout.makeView(viewport: viewport), itemCount: itemCount ?? layout.itemCount, fetcher: fetcher, meter: meter,
                  identifier: identifier, rows: layout)
    }

    /// Fills `view` from `fetcher`; completions go through `deliveries`. With `expectedBytes`
    /// (an item's payload size, as a feed that lists sizes would say) the prefetcher's target
    /// gives the view each item's own load time. A list whose `rows` have heights of their own
    /// (``ScenarioLayout/rowHeights``) lays them out at those heights.
    init(
        view: any SampleSurface, itemCount: Int, fetcher: AsyncFetcher<ID, Value>,
        deliveries: MainActorDeliveries<ID> = MainActorDeliveries(), meter: ReadinessMeter, identifier: @escaping (Int) -> ID?,
        expectedBytes: ((Int) -> Int?)? = nil, rows: ScenarioLayout? = nil
    ) {
        surface = view
        rowHeights = rows.flatMap { $0.kind == .list ? $0.rowHeights : nil }
        typicalRowHeight = rows?.itemHeight ?? 0
        self.itemCount = itemCount
        self.fetcher = fetcher
        self.deliveries = deliveries
        self.meter = meter
        self.identifier = identifier
        self.expectedBytes = expectedBytes
        prefetchTarget = fetcher.prefetchTarget(identifier: { identifier($0.item) },
                                                expectedBytes: expectedBytes.map { bytes in { bytes($0.item) } })
        let callbacks = SampleCallbacks(app: self)
        self.callbacks = callbacks
        view.install(callbacks)
        attachPrefetcher(policy: PrefetchPolicies.adaptive, configuration: .standard)
    }

    // MARK: The app's prefetcher

    /// Attaches a new prefetcher with `policy` and `configuration`, the network conditions of the
    /// one it replaces, if any.
    private func attachPrefetcher(policy: any PrefetchPolicy, configuration: PrefetchController<IndexPath>.Configuration,
                                  conditions: NetworkConditions = NetworkConditions()) {
        let controller = PrefetchController<IndexPath>(policy: policy, target: isPrefetchingEnabled ? prefetchTarget : nil,
                                                       configuration: configuration)
        controller.networkConditions = conditions
        controller.previews = previewPlan
        let view = surface
        let prefetcher = ScrollViewPrefetcher(
            surface: view,
            lookup: ItemLookup(item: { [unowned self] in IndexPath(indexes: [0, $0.item + indexBase]) },
                               indexPath: { [unowned self] in
                                   let index = $0.item - indexBase
                                   return (0..<itemCount).contains(index) ? IndexPath(indexes: [0, index]) : nil
                               }),
            controller: controller, axis: .vertical,
            clock: view.clock,
            // The prefetcher's quiet-time checks run at the view's steps, so a run repeats exactly.
            schedule: { [weak self, unowned view] delay, action in
                self?.timers.append((due: view.currentTime + delay.seconds, action: action))
            })
        prefetcher.onProblem = { [unowned self] problem in prefetchProblems.append(problem) }
        self.prefetcher = prefetcher
    }

    /// Runs the prefetcher's scheduled actions due by `time` (the view's clock is there already),
    /// in the order of their due times; what they schedule runs at a later step.
    private func fireTimers(upTo time: Double) {
        guard !timers.isEmpty else { return }
        let due = timers.enumerated().filter { $0.element.due <= time }.sorted { ($0.element.due, $0.offset) < ($1.element.due, $1.offset) }
        guard !due.isEmpty else { return }
        timers = timers.filter { $0.due > time }
        for timer in due { timer.element.action() }
    }

    /// Stops the app's prefetcher and withdraws what it asked for: the view's own prefetch data
    /// source (a peer's prefetcher) takes over.
    func detachPrefetcher() {
        prefetcher?.detach()
        prefetcher = nil
        listFeed?.prefetcher.controller.withdrawAll()
        listFeed = nil
    }

    /// Whether the list's rows size themselves (``selfSizeRows()``): the view estimates each row
    /// until its cell is laid out, and the cell says how tall it is.
    private(set) var rowsSizeThemselves = false

    /// A list of rows of different heights sizes them as a UIKit app's self-sizing cells do
    /// (before a run): the table view lays each row out at the typical height
    /// (`estimatedRowHeight`) until the row comes on screen, when its cell gives its own height;
    /// the content size and, for rows above the screen, the offset change as rows are measured.
    /// Nothing changes under the SwiftUI toolkit, whose lazy stack estimates rows in any case
    /// (``ListFeed``), nor on a grid or a list whose rows share one height.
    func selfSizeRows() {
        guard listFeed == nil, rowHeights != nil, let table = surface as? TableView else { return }
        rowsSizeThemselves = true
        table.estimatedRowHeight = typicalRowHeight
    }

    /// Drives the app's prefetching through `toolkit`'s binding (before a run): with `.swiftui`,
    /// a `ListFeed` replaces the UIKit prefetcher, with its policy, network conditions, previews
    /// and whether prefetching is on.
    public func use(_ toolkit: Toolkit) {
        guard toolkit == .swiftui, listFeed == nil, !rowsSizeThemselves else { return }
        let (policy, conditions, enabled) = (self.policy, networkConditions, isPrefetchingEnabled)
        detachPrefetcher()
        let view = surface
        let feed = ListFeed<ID, Value>(
            fetcher: fetcher, expectedBytes: expectedBytes, rowEstimate: rowHeights == nil ? nil : typicalRowHeight,
            clock: view.clock,
            schedule: { [weak self, unowned view] delay, action in self?.timers.append((due: view.currentTime + delay.seconds, action: action)) })
        feed.prefetcher.onProblem = { [unowned self] problem in prefetchProblems.append(problem) }
        feed.firstItemNumber = { [unowned self] in indexBase }
        listFeed = feed
        self.policy = policy
        networkConditions = conditions
        isPrefetchingEnabled = enabled
        feed.controller.previews = previewPlan
        listRowsChanged()
        feed.frame(of: surface)
    }

    /// The SwiftUI list's rows changed: the items whose identifiers are known, in order.
    func listRowsChanged() {
        guard let listFeed else { return }
        let rows = (0..<itemCount).compactMap { index in identifier(itemNumber(index)).map { (id: $0, number: itemNumber(index)) } }
        listFeed.layoutChanged(items: rows, view: surface)
    }

    /// The prefetcher's controller tuning; setting it attaches a new prefetcher with it (before a run).
    public var prefetchConfiguration: PrefetchController<IndexPath>.Configuration {
        get { prefetcher?.controller.configuration ?? .standard }
        set {
            let (policy, conditions) = (self.policy, networkConditions)
            detachPrefetcher()
            attachPrefetcher(policy: policy, configuration: newValue, conditions: conditions)
        }
    }

    /// The priority the cell at `indexPath` asks with: the prefetcher's (UIKit's
    /// `ScrollViewPrefetcher.priority(at:)`), or, without one, the view's own planner's.
    func priority(at indexPath: IndexPath) -> FetchPriority {
        if let listFeed {
            // A SwiftUI row asks the list prefetcher's controller for its id.
            return identifier(itemNumber(indexPath.item)).map { listFeed.controller.priority(for: $0) } ?? .visible
        }
        return prefetcher?.priority(at: indexPath) ?? surface.priority(forItemAt: indexPath)
    }

    /// The items the plan holds now, by view index, in order: the prefetcher's requests, or,
    /// without one, what the view's own prefetch data source was asked for and not yet shown.
    public var plannedItems: [Int] { plannedItemNumbers.map { $0 - indexBase } }

    /// The items the plan holds now, by stable number (``indexBase``), in order: what the meter counts.
    var plannedItemNumbers: [Int] {
        if let listFeed { return isPrefetchingEnabled ? listFeed.plannedItemNumbers : [] }
        guard let prefetcher else { return surface.indexPathsPendingPrefetch.map { $0.item + indexBase } }
        guard isPrefetchingEnabled else { return [] }
        return prefetcher.controller.requestedItems.map(\.item.item).sorted()
    }

    /// The stable number of the item at view index `index`.
    func itemNumber(_ index: Int) -> Int { index + indexBase }

    /// The grid (a `CollectionView`) or the list (a `TableView`).
    public var view: ItemScrollView { surface }

    /// The items on screen, in order.
    public var visibleItems: [Int] { surface.visibleIndexPaths.map(\.item) }

    /// Calls `body` with each item whose frame meets `rect` (content coordinates) and the frame.
    public func forEachItem(in rect: CGRect, _ body: (Int, CGRect) -> Void) {
        surface.forEachItem(in: rect) { body($0.item, $1) }
    }

    /// Steps the view to `time` (seconds), withdrawing the consumers of cells that went back to
    /// the reuse pool before (a jump lays out at once) and after.
    public func step(to time: Double) {
        releasePooledConsumers()
        surface.step(to: time)
        // SwiftUI reports the scroll after the frame's layout.
        listFeed?.frame(of: surface)
        fireTimers(upTo: time)
        if scrollAnimationRunning, !surface.isScrollAnimating {
            // UIKit's `scrollViewDidEndScrollingAnimation` (or `scrollViewDidScrollToTop`), which
            // the app's delegate forwards to its prefetcher, after the animation's last frame.
            scrollAnimationRunning = false
            prefetcher?.didEndScrollingAnimation()
        }
        // What the prefetcher's documentation asks of an app with a memory budget: a display link
        // that lets a resting view's held-back requests and store promotions move on.
        if prefetchTarget.prefetchCapacity != nil, !surface.isDragging, !surface.isDecelerating, !surface.isScrollAnimating {
            prefetcher?.refresh()
        }
        releasePooledConsumers()
        if !placeholders.isEmpty {
            placeholders = placeholders.filter { item, cell in cell.indexPath?.last.map(itemNumber) == item && cell.content.identifier == nil }
        }
    }

    /// Ends the run: the meter closes its open waits (the view's prefetch window counts as still
    /// planned), and the fetcher shuts down.
    public func finish() {
        meter.finish(stillPlanned: plannedItemNumbers)
        fetcher.shutdown()
    }
}
