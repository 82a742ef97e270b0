#if canImport(UIKit)
// PrefetchUIKit's only Apple-only lines: UIKit's types bound to the portable ScrollSurface.
import PrefetchKit
import UIKit

extension ScrollViewPrefetcher {
    /// Attaches to a collection view whose index paths `lookup` names, planned by `controller`; UIKit's own data prefetching is turned off.
    public convenience init(collectionView: UICollectionView, lookup: ItemLookup<Item>, controller: PrefetchController<Item>,
                            axis: ScrollAxis = .vertical) {
        self.init(retaining: CollectionViewSurface(collectionView), lookup: lookup, adapter: ScrollAdapter(controller: controller), axis: axis)
    }

    /// Attaches to a table view whose rows `lookup` names; UIKit's own data prefetching is turned off.
    public convenience init(tableView: UITableView, lookup: ItemLookup<Item>, controller: PrefetchController<Item>) {
        self.init(retaining: TableViewSurface(tableView), lookup: lookup, adapter: ScrollAdapter(controller: controller), axis: .vertical)
    }

    /// Attaches to a collection view whose diffable data source's item identifiers are the fetcher's ids;
    /// `expectedBytes` gives an item's size when the feed says (each item is then planned with its own load time).
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        collectionView: UICollectionView, dataSource: UICollectionViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.adaptive, axis: ScrollAxis = .vertical,
        expectedBytes: ((Item) -> Int?)? = nil
    ) where Item: Sendable {
        self.init(retaining: CollectionViewSurface(collectionView), dataSource: dataSource, fetcher: fetcher, policy: policy, axis: axis,
                  expectedBytes: expectedBytes)
    }

    /// Attaches to a table view whose diffable data source's item identifiers are the fetcher's ids;
    /// `expectedBytes` gives an item's size when the feed says (each item is then planned with its own load time).
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        tableView: UITableView, dataSource: UITableViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.adaptive,
        expectedBytes: ((Item) -> Int?)? = nil
    ) where Item: Sendable {
        self.init(retaining: TableViewSurface(tableView), dataSource: dataSource, fetcher: fetcher, policy: policy, axis: .vertical,
                  expectedBytes: expectedBytes)
    }

    /// Forward your delegate's `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)` here (after you snap).
    public func scrollViewWillEndDragging(_ scrollView: UIScrollView, withVelocity velocity: CGPoint,
                                          targetContentOffset: UnsafeMutablePointer<CGPoint>) {
        let (speed, target) = axis == .vertical ? (velocity.y, targetContentOffset.pointee.y) : (velocity.x, targetContentOffset.pointee.x)
        willEndDragging(velocityPerMillisecond: Double(speed), target: Double(target))
    }
}

extension UICollectionViewDiffableDataSource: DiffableItems {}
extension UITableViewDiffableDataSource: DiffableItems {}
extension UIScrollView {
    func reading(along axis: ScrollAxis) -> SurfaceReading? {
        let inset = adjustedContentInset
        return window == nil || bounds.isEmpty ? nil : SurfaceReading(
            axis, offset: contentOffset, size: bounds.size, content: contentSize, insets: (inset.top, inset.left, inset.bottom, inset.right),
            isDragging: isDragging, isDecelerating: isDecelerating, decelerationRate: decelerationRate.rawValue)
    }
    func animateScroll(to offset: Double, along axis: ScrollAxis) {
        setContentOffset(axis == .vertical ? CGPoint(x: contentOffset.x, y: offset) : CGPoint(x: offset, y: contentOffset.y), animated: true)
    }
    func announcePageScrolled(_ status: String) { UIAccessibility.post(notification: .pageScrolled, argument: status) }
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        // Key-value observers, called by UIKit on the main thread; one step moves the offset and the bounds' origin.
        let tokens = [observe(\.contentOffset) { _, _ in events.changed(false) }, observe(\.bounds) { _, _ in events.changed(false) },
                      observe(\.contentSize) { _, _ in events.changed(true) }]
        let center = NotificationCenter.default
        // UIKit posts the memory warning on the main thread: no queue runs the block there, at once.
        let warning = center.addObserver(forName: UIApplication.didReceiveMemoryWarningNotification, object: nil, queue: nil) { _ in
            events.memoryWarning()
        }
        #if canImport(ObjectiveC)   // target-action needs Objective-C, which the Linux stand-in lacks
        let pan = PanRelay(events)
        panGestureRecognizer.addTarget(pan, action: #selector(PanRelay.panned(_:)))
        return { [weak self] in
            tokens.forEach { $0.invalidate() }; center.removeObserver(warning); self?.panGestureRecognizer.removeTarget(pan, action: nil)
        }
        #else
        return { tokens.forEach { $0.invalidate() }; center.removeObserver(warning) }
        #endif
    }
}
#if canImport(ObjectiveC)
private final class PanRelay: NSObject {
    let events: SurfaceEvents
    init(_ events: SurfaceEvents) { self.events = events }
    @MainActor @objc func panned(_ pan: UIPanGestureRecognizer) {
        if pan.state == .began { events.dragBegan() } else if pan.state == .ended || pan.state == .cancelled { events.dragEnded(pan.velocity(in: pan.view)) }
    }
}
#endif
/// A collection view as a ``ScrollSurface``: the prefetcher keeps the box, the box keeps the view
/// weakly, so UIKit's types gain no public members.
final class CollectionViewSurface: ScrollSurface {
    weak var view: UICollectionView?
    init(_ view: UICollectionView) { self.view = view }
    func reading(along axis: ScrollAxis) -> SurfaceReading? { view?.reading(along: axis) }
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        (view?.collectionViewLayout.layoutAttributesForElements(in: axisBand(range, axis)) ?? []).compactMap { cell in
            cell.representedElementCategory == .cell ? axisExtent(cell.frame, axis).map { (cell.indexPath, $0) } : nil
        }
    }
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        view?.layoutAttributesForItem(at: indexPath).flatMap { axisExtent($0.frame, axis) }
    }
    func crossExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { cellExtent(at: indexPath, along: axis.across) }
    func visibleCrossExtent(ofSection section: Int, along axis: ScrollAxis) -> Range<Double>? {
        // A section whose first or last item lies past the bounds across the axis scrolls across it on
        // its own (an orthogonal section): it shows the span of its visible items, or before any is
        // shown (a section still ahead) the part the bounds span, where it starts.
        guard let view, section < view.numberOfSections, case let count = view.numberOfItems(inSection: section), count > 0,
              let shown = axisExtent(view.bounds, axis.across),
              let first = crossExtent(at: IndexPath(indexes: [section, 0]), along: axis),
              let last = crossExtent(at: IndexPath(indexes: [section, count - 1]), along: axis),
              min(first.lowerBound, last.lowerBound) < shown.lowerBound - 0.5 || max(first.upperBound, last.upperBound) > shown.upperBound + 0.5
        else { return nil }
        let visible = view.indexPathsForVisibleItems.filter { $0.count == 2 && $0[0] == section }.compactMap { crossExtent(at: $0, along: axis) }
        guard let low = visible.map(\.lowerBound).min(), let high = visible.map(\.upperBound).max() else { return shown }
        return low..<high
    }
    func animateScroll(to offset: Double, along axis: ScrollAxis) { view?.animateScroll(to: offset, along: axis) }
    func stopDataPrefetching() { view?.prefetchDataSource = nil }
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        guard let view else { return {} }
        return view.observeScrolling(events)
    }
    func announcePageScrolled(_ status: String) { view?.announcePageScrolled(status) }
}

/// A table view as a ``ScrollSurface``, kept weakly like ``CollectionViewSurface``.
final class TableViewSurface: ScrollSurface {
    weak var view: UITableView?
    init(_ view: UITableView) { self.view = view }
    func reading(along axis: ScrollAxis) -> SurfaceReading? { view?.reading(along: axis) }
    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        guard let view else { return [] }
        return (view.indexPathsForRows(in: axisBand(range, axis)) ?? []).compactMap { path in axisExtent(view.rectForRow(at: path), axis).map { (path, $0) } }
    }
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { view.flatMap { axisExtent($0.rectForRow(at: indexPath), axis) } }
    func animateScroll(to offset: Double, along axis: ScrollAxis) { view?.animateScroll(to: offset, along: axis) }
    func stopDataPrefetching() { view?.prefetchDataSource = nil }
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        guard let view else { return {} }
        return view.observeScrolling(events)
    }
    func announcePageScrolled(_ status: String) { view?.announcePageScrolled(status) }
}
#endif
