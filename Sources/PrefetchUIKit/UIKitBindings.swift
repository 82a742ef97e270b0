#if canImport(UIKit)
// The only Apple-only lines of PrefetchUIKit: UIKit's types conformed to the module's portable
// protocols, and the observers registered. Everything they report is interpreted elsewhere.
import PrefetchKit
import UIKit

extension ScrollViewPrefetcher {
    /// Attaches to a collection view whose index paths `lookup` names, and turns UIKit's own data
    /// prefetching off (`prefetchDataSource = nil`); cell prefetching is left on.
    public convenience init(collectionView: UICollectionView, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>,
                            axis: ScrollAxis = .vertical) {
        self.init(surface: collectionView, lookup: lookup, adapter: adapter, axis: axis, announcer: VoiceOver(),
                  now: { ProcessInfo.processInfo.systemUptime })
        collectionView.prefetchDataSource = nil
        observe(collectionView)
    }

    /// Attaches to a table view whose rows `lookup` names; its own data prefetching is turned off.
    public convenience init(tableView: UITableView, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>) {
        self.init(surface: tableView, lookup: lookup, adapter: adapter, axis: .vertical, announcer: VoiceOver(),
                  now: { ProcessInfo.processInfo.systemUptime })
        tableView.prefetchDataSource = nil
        observe(tableView)
    }

    /// Attaches to a collection view with a diffable data source whose item identifiers are the
    /// fetcher's ids: the usual set-up in one line.
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        collectionView: UICollectionView, dataSource: UICollectionViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard
    ) where Item: Sendable {
        self.init(collectionView: collectionView,
                  lookup: mainActorLookup({ [weak dataSource] in dataSource?.itemIdentifier(for: $0) },
                                          { [weak dataSource] in dataSource?.indexPath(for: $0) }),
                  adapter: ScrollAdapter(fetcher: fetcher, policy: policy) { $0 })
    }

    /// Attaches to a table view with a diffable data source whose item identifiers are the fetcher's ids.
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        tableView: UITableView, dataSource: UITableViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard
    ) where Item: Sendable {
        self.init(tableView: tableView,
                  lookup: mainActorLookup({ [weak dataSource] in dataSource?.itemIdentifier(for: $0) },
                                          { [weak dataSource] in dataSource?.indexPath(for: $0) }),
                  adapter: ScrollAdapter(fetcher: fetcher, policy: policy) { $0 })
    }

    /// Forward your delegate's `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)`
    /// here (after changing the target, if you snap): the controller plans for that exact resting offset.
    public func scrollViewWillEndDragging(_ scrollView: UIScrollView, withVelocity velocity: CGPoint,
                                          targetContentOffset: UnsafeMutablePointer<CGPoint>) {
        let along = axis == .vertical
        willEndDragging(velocityPerMillisecond: Double(along ? velocity.y : velocity.x),
                        target: Double(along ? targetContentOffset.pointee.y : targetContentOffset.pointee.x))
    }

    private func observe(_ view: UIScrollView) {
        // UIKit calls key-value observers on the main thread, where the scroll view changes.
        let changed: @Sendable (Bool) -> Void = { [weak self] layout in
            MainActor.assumeIsolated { self?.surfaceChanged(layoutChanged: layout) }
        }
        let tokens = [view.observe(\.contentOffset) { _, _ in changed(false) },
                      view.observe(\.bounds) { _, _ in changed(false) },
                      view.observe(\.contentSize) { _, _ in changed(true) }]
        #if canImport(ObjectiveC)
        let axis = self.axis
        let pan = PanRelay(began: { [weak self] in self?.dragBegan() }, ended: { [weak self] finger in
            self?.dragEnded(velocity: -Double(axis == .vertical ? finger.y : finger.x))   // the finger moves against the offset
        })
        view.panGestureRecognizer.addTarget(pan, action: #selector(PanRelay.panned(_:)))
        unbind = { [weak view] in tokens.forEach { $0.invalidate() }; view?.panGestureRecognizer.removeTarget(pan, action: nil) }
        #else
        unbind = { tokens.forEach { $0.invalidate() } }
        #endif
    }
}

#if canImport(ObjectiveC)
private final class PanRelay: NSObject {
    let began: @MainActor () -> Void, ended: @MainActor (CGPoint) -> Void
    init(began: @escaping @MainActor () -> Void, ended: @escaping @MainActor (CGPoint) -> Void) { (self.began, self.ended) = (began, ended) }
    @MainActor @objc func panned(_ pan: UIPanGestureRecognizer) {
        if pan.state == .began { began() } else if pan.state == .ended || pan.state == .cancelled { ended(pan.velocity(in: pan.view)) }
    }
}
#endif

extension UIScrollView {
    func reading(along axis: ScrollAxis) -> SurfaceReading? {
        guard window != nil, !bounds.isEmpty else { return nil }
        let (along, inset) = (axis == .vertical, adjustedContentInset)
        return SurfaceReading(offset: Double(along ? contentOffset.y : contentOffset.x), viewportLength: Double(along ? bounds.height : bounds.width),
                              contentLength: Double(along ? contentSize.height : contentSize.width),
                              leadingInset: Double(along ? inset.top : inset.left), trailingInset: Double(along ? inset.bottom : inset.right),
                              isDragging: isDragging, isDecelerating: isDecelerating, decelerationRate: Double(decelerationRate.rawValue))
    }

    func animateScroll(to offset: Double, along axis: ScrollAxis) {
        setContentOffset(axis == .vertical ? CGPoint(x: contentOffset.x, y: offset) : CGPoint(x: offset, y: contentOffset.y), animated: true)
    }
}

extension UICollectionView: ScrollSurface {
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        (collectionViewLayout.layoutAttributesForElements(in: axisBand(range, axis)) ?? []).compactMap { cell in
            cell.representedElementCategory == .cell ? axisExtent(cell.frame, axis).map { (cell.indexPath, $0) } : nil
        }
    }
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        layoutAttributesForItem(at: indexPath).flatMap { axisExtent($0.frame, axis) }
    }
}

extension UITableView: ScrollSurface {
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        (indexPathsForRows(in: axisBand(range, axis)) ?? []).compactMap { path in axisExtent(rectForRow(at: path), axis).map { (path, $0) } }
    }
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { axisExtent(rectForRow(at: indexPath), axis) }
}

private struct VoiceOver: PageScrollAnnouncer {
    func pageScrolled(status: String) { UIAccessibility.post(notification: .pageScrolled, argument: status) }
}

extension PrefetchDataSourceTarget {
    /// Forwards to a collection view's prefetching data source (most loads at once: `maxConcurrentLoads`).
    @MainActor public convenience init(collectionView: UICollectionView, prefetching: any UICollectionViewDataSourcePrefetching,
                                       lookup: ItemLookup<Item>, maxConcurrentLoads: Int = 6) {
        self.init(bridge: Bridge(collectionView, prefetching), lookup: lookup, maxConcurrentLoads: maxConcurrentLoads)
    }

    /// Forwards to a table view's prefetching data source.
    @MainActor public convenience init(tableView: UITableView, prefetching: any UITableViewDataSourcePrefetching,
                                       lookup: ItemLookup<Item>, maxConcurrentLoads: Int = 6) {
        self.init(bridge: Bridge(tableView, prefetching), lookup: lookup, maxConcurrentLoads: maxConcurrentLoads)
    }
}

private final class Bridge: PrefetchingBridge {
    private let prefetchPaths: ([IndexPath]) -> Void, cancelPaths: ([IndexPath]) -> Void
    init(_ view: UICollectionView, _ source: any UICollectionViewDataSourcePrefetching) {
        prefetchPaths = { [weak view, weak source] in if let view { source?.collectionView(view, prefetchItemsAt: $0) } }
        cancelPaths = { [weak view, weak source] in if let view { source?.collectionView?(view, cancelPrefetchingForItemsAt: $0) } }
    }
    init(_ view: UITableView, _ source: any UITableViewDataSourcePrefetching) {
        prefetchPaths = { [weak view, weak source] in if let view { source?.tableView(view, prefetchRowsAt: $0) } }
        cancelPaths = { [weak view, weak source] in if let view { source?.tableView?(view, cancelPrefetchingForRowsAt: $0) } }
    }
    func prefetch(_ indexPaths: [IndexPath]) { prefetchPaths(indexPaths) }
    func cancelPrefetching(_ indexPaths: [IndexPath]) { cancelPaths(indexPaths) }
}
#endif
