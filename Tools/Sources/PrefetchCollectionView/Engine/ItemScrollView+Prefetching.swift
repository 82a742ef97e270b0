import Foundation
import PrefetchKit

/// What ``CollectionView`` and ``TableView`` give the shared engine: their data source, delegate
/// and prefetch data source, each in its own protocol's terms.
@MainActor
protocol ItemViewHost: AnyObject {
    /// The data source's number of sections; 0 without a data source.
    func hostNumberOfSections() -> Int
    /// The data source's number of items in `section`; 0 without a data source.
    func hostNumberOfItems(inSection section: Int) -> Int
    /// The data source's cell for `indexPath`; nil without a data source.
    func hostCell(at indexPath: IndexPath) -> ReusableCell?
    /// Tells the delegate a cell is about to come on screen.
    func hostWillDisplay(_ cell: ReusableCell, at indexPath: IndexPath)
    /// Tells the delegate a cell left the screen.
    func hostDidEndDisplaying(_ cell: ReusableCell, at indexPath: IndexPath)
    /// What kind of prefetch data source the view has.
    var hostPrefetching: HostPrefetching { get }
    /// A prioritized prefetch data source, as the reporter of its loads; nil for the other kinds.
    var hostLoadReporting: (any PrefetchLoadReporting)? { get }
    /// A classic prefetch data source's `prefetchItemsAt`.
    func hostPrefetch(_ indexPaths: [IndexPath])
    /// A classic prefetch data source's `cancelPrefetchingForItemsAt`.
    func hostCancelPrefetch(_ indexPaths: [IndexPath])
    /// A prioritized prefetch data source's `updatePrefetching`.
    func hostUpdatePrefetching(_ update: PrefetchUpdate<IndexPath>)
    /// The layout's environment, with the delegate's sizes.
    func hostLayoutEnvironment(counts: [Int]) -> LayoutEnvironment
    /// Sets the prefetch data source to nil (an app's prefetcher took over, as on UIKit).
    func hostStopPrefetching()
    /// Sizes the items on screen that the layout only estimated (a self-sizing table's rows),
    /// before the pass lays them out; nothing for a view that does not self-size.
    func hostSizeItemsOnScreen()
    /// The items moved (a batch update: `map` gives each old index path's new one, nil when the
    /// item is gone) or all changed (a reload: `map` is nil); sizes measured before follow them.
    func hostItemsChanged(map: ((IndexPath) -> IndexPath?)?)
}

/// The kind of prefetch data source a view has.
enum HostPrefetching {
    /// None: the view prefetches nothing.
    case none
    /// UIKit's two callbacks: items entering the plan, items leaving it.
    case classic
    /// The planner's full decisions; the data source reports the latency.
    case prioritized
}

/// How a view names its items in messages: "item" for a collection view, "row" for a table view.
struct ItemNames {
    /// The noun: `item` or `row`.
    let noun: String
    /// The scroll-to call, for messages: `scrollToItem(at:)` or `scrollToRow(at:)`.
    let scrollFunction: String
    /// The data source's count method, for messages.
    let countFunction: String

    static let items = ItemNames(noun: "item", scrollFunction: "scrollToItem(at:)", countFunction: "numberOfItemsInSection")
    static let rows = ItemNames(noun: "row", scrollFunction: "scrollToRow(at:)", countFunction: "numberOfRowsInSection")
}

/// A layout seen along the scroll axis, for the view's prefetch planner.
@MainActor
struct LayoutGeometry: @MainActor ItemGeometry {
    let layout: any CollectionLayout
    /// The horizontal band the items lie in (the view's width).
    let minX: Double
    let width: Double

    func forEachItem(meeting range: Range<Double>, _ body: (IndexPath, Range<Double>) -> Void) {
        let rect = CGRect(x: minX, y: range.lowerBound, width: width, height: range.upperBound - range.lowerBound)
        layout.forEachItem(in: rect) { indexPath, frame in body(indexPath, frame.minY..<frame.maxY) }
    }

    func extent(of item: IndexPath) -> Range<Double>? {
        layout.frameForItem(at: item).map { $0.minY..<$0.maxY }
    }
}

/// The view's side of its `PrefetchController`: the target the controller sends its decisions
/// to, holding each frame's update until the view delivers it around its display changes
/// (withdrawals before, requests after, as UIKit orders its callbacks), and reporting the
/// latencies of the prioritized prefetch data source, if the view has one.
@MainActor
final class ViewPrefetchTarget: @MainActor PrefetchTarget {
    /// The prioritized prefetch data source whose latencies the controller plans with; nil for
    /// a classic data source (the controller's fallback latency) or none.
    weak var reporting: (any PrefetchLoadReporting)?
    /// Whether the prioritized data source's fetcher has a store for requests beyond its capacity.
    var acceptsStore = false
    /// What the controller sent since the view last took it.
    private(set) var received = PrefetchUpdate<IndexPath>()
    /// The items the controller asked to keep in memory at the last memory-pressure signal.
    private(set) var keep: [IndexPath]?

    func updatePrefetching(_ update: PrefetchUpdate<IndexPath>) {
        if received.isEmpty { received = update } else {
            received.moved += update.moved
            received.removed += update.removed
            received.withdrawals += update.withdrawals
            received.requests += update.requests
        }
    }

    var expectedLatency: Duration? { reporting?.expectedLatency }
    var typicalLatency: Duration? { reporting?.typicalLatency }
    func typicalLatency(of item: IndexPath) -> Duration? { reporting?.typicalLatency(of: item) }
    var prefetchCapacity: Int? { reporting?.prefetchCapacity }
    var acceptsStoreDestination: Bool { acceptsStore }
    func trimMemory(keeping items: [IndexPath]) { keep = items }

    /// Takes what the controller sent since the last call.
    func take() -> (update: PrefetchUpdate<IndexPath>, keep: [IndexPath]?) {
        defer { received = PrefetchUpdate(); keep = nil }
        return (received, keep)
    }
}

extension ItemScrollView {
    var geometry: LayoutGeometry {
        LayoutGeometry(layout: layoutObject, minX: contentOffsetStorage.x, width: size.width)
    }

    /// Plans this pass through the view's `PrefetchController` and returns its decisions, to be
    /// delivered around the display changes (withdrawals before, requests after, as UIKit orders
    /// its callbacks).
    ///
    /// Without a prefetch data source (or with prefetching off, or no area) the controller has
    /// no target: it only follows the motion, and what it held is withdrawn; the latency it plans
    /// with is the prioritized data source's.
    func planPrefetching() -> PrefetchUpdate<IndexPath> {
        let prefetching: Bool
        if case .none = host?.hostPrefetching ?? .none { prefetching = false } else { prefetching = isPrefetchingEnabled && hasArea }
        let reporting = prefetching ? host?.hostLoadReporting : nil
        prefetchTarget.reporting = reporting
        prefetchTarget.acceptsStore = reporting?.acceptsStoreDestination ?? false
        if prefetching {
            if controller.target == nil { controller.target = prefetchTarget }
        } else if controller.target != nil {
            controller.target = nil   // the controller withdraws what it held from the view's target
        }
        controller.update(scrollState, geometry: geometry)
        return prefetchTarget.take().update
    }

    /// Withdrawals: a classic data source hears `cancelPrefetchingForItemsAt` for the pending
    /// items that left the plan, in index path order; renamed and removed items only change the
    /// view's bookkeeping (the batch update or reload already did).
    func deliverWithdrawals(of update: PrefetchUpdate<IndexPath>, visible: [IndexPath: CGRect]) {
        guard !update.withdrawals.isEmpty else { return }
        var cancelled: [IndexPath] = []
        for indexPath in update.withdrawals where visible[indexPath] == nil {
            if pendingPrefetch.remove(indexPath) != nil { cancelled.append(indexPath) }
        }
        guard !cancelled.isEmpty else { return }
        cancelled.sort()
        for indexPath in cancelled { emit(.cancelPrefetch, indexPath) }
        if case .classic = host?.hostPrefetching ?? .none { host?.hostCancelPrefetch(cancelled) }
    }

    /// Requests: a classic data source hears `prefetchItemsAt` for the items that entered the
    /// plan off screen, most urgent first; a prioritized one gets the whole update.
    func deliverRequests(of update: PrefetchUpdate<IndexPath>, visible: [IndexPath: CGRect]) {
        var entering: [IndexPath] = []
        for request in update.requests {
            let indexPath = request.item
            // Most requests of a re-ranking frame re-prioritise pending items: one hash for those.
            guard !pendingPrefetch.contains(indexPath), visible[indexPath] == nil, !displayed.contains(indexPath) else { continue }
            pendingPrefetch.insert(indexPath)
            entering.append(indexPath)
        }
        for indexPath in entering { emit(.prefetch, indexPath) }
        switch host?.hostPrefetching ?? .none {
        case .none:
            break
        case .classic:
            if !entering.isEmpty { host?.hostPrefetch(entering) }
        case .prioritized:
            if !update.isEmpty { host?.hostUpdatePrefetching(update) }
        }
    }

    /// Answers memory pressure, as `PrefetchUIKit`'s prefetcher answers a UIKit app's memory
    /// warning: call it when the system runs short of memory (in a simulation, at the signal's frame).
    ///
    /// At once the view's planner withdraws every request but those of the items on screen and
    /// where a fling or an animated scroll comes to rest, and the view delivers the withdrawals as
    /// a frame delivers them: a classic prefetch data source hears `cancelPrefetchingForItemsAt`,
    /// a prioritized one gets the update, then ``PrefetchLoadReporting/trimMemory(keeping:)`` with
    /// the items it keeps (a ``FetcherPrefetchDataSource`` keeps only their values in the
    /// fetcher's cache). For `PrefetchController.Configuration.memoryPressureDuration` seconds of
    /// the view's clock its frames plan only the screen and the landing zone; then the policy's
    /// window comes back. Before the first frame, the shrinking starts with it.
    ///
    /// ```swift
    /// collectionView.handleMemoryPressure()
    /// ```
    public func handleMemoryPressure() {
        notifyMemoryWarning()   // an app's prefetcher hears the system's warning too
        controller.handleMemoryPressure()
        let (update, keep) = prefetchTarget.take()
        var visible: [IndexPath: CGRect] = [:]
        for indexPath in displayed { visible[indexPath] = cells[indexPath]?.frame ?? .zero }
        deliverWithdrawals(of: update, visible: visible)
        deliverRequests(of: update, visible: visible)
        if case .prioritized = host?.hostPrefetching ?? .none, let keep { host?.hostLoadReporting?.trimMemory(keeping: keep) }
    }

    /// The view planner's tuning (`PrefetchController.Configuration`); a change applies from the
    /// next frame. The simulator measures the memory-pressure duration with it.
    public var prefetchConfiguration: PrefetchController<IndexPath>.Configuration {
        get { controller.configuration }
        set {
            let conditions = controller.networkConditions
            controller.target = nil
            _ = prefetchTarget.take()
            controller = PrefetchController(policy: controller.policy, configuration: newValue)
            controller.networkConditions = conditions
        }
    }

    /// The priority to load the item at `indexPath` at now: what the view's planner requested
    /// it at, or its rank under the current forecast.
    func fetchPriority(at indexPath: IndexPath) -> FetchPriority {
        if let priority = controller.requestedPriority(of: indexPath) { return priority }
        prepareData()
        return controller.priority(for: indexPath, extent: geometry.extent(of: indexPath))
    }
}
