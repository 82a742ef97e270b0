#if canImport(UIKit)
import Foundation
import PrefetchKit
import UIKit

/// Feeds a ``PrefetchKit/PrefetchController`` from a `UICollectionView` or a `UITableView` and
/// stands in for UIKit's fixed prefetch window.
///
/// It watches the scroll view (its content offset, size and insets, and its pan gesture), turns
/// what it sees into frames for a ``PrefetchKit/ScrollAdapter``, and answers the priority a cell
/// asks with. Every decision is made in `PrefetchKit`; this type only reads UIKit's values.
///
/// ```swift
/// let prefetcher = ScrollViewPrefetcher(collectionView: collectionView, dataSource: dataSource, fetcher: fetcher)
/// // in the cell provider:
/// fetcher.fetchAsync(id, priority: prefetcher.priority(at: indexPath)) { result in … }
/// // after dataSource.apply(snapshot):
/// prefetcher.dataChanged()
/// ```
///
/// Bad input (the scroll view is gone, an index path is stale, the fetcher was shut down) stops
/// in debug builds with an assertion that names the value, and is ignored in release builds.
@MainActor
public final class ScrollViewPrefetcher<Item: Hashable>: NSObject {
    /// Which of the scroll view's axes the list scrolls along.
    public enum Axis: Sendable { case vertical, horizontal }

    /// The portable adapter that makes every decision.
    public let adapter: ScrollAdapter<Item>
    /// Names the view's index paths as items.
    public let lookup: ItemLookup<Item>
    /// The axis the list scrolls along.
    public let axis: Axis
    /// The part of a viewport that a page scroll keeps in view, in points.
    public var pageOverlap: CGFloat = 0
    private weak var scrollView: UIScrollView?
    private let cells: @MainActor (CGRect) -> [(IndexPath, CGRect)]
    private let cell: @MainActor (IndexPath) -> CGRect?
    private var observations: [NSKeyValueObservation] = []
    private var liftReported = false

    /// The controller the adapter feeds.
    public var controller: PrefetchController<Item> { adapter.controller }

    /// Attaches to a collection view; the items are named through `lookup`.
    ///
    /// The collection view's own data prefetching is turned off (`prefetchDataSource = nil`):
    /// the controller decides instead. Cell prefetching (`isPrefetchingEnabled`) is left alone.
    public init(collectionView: UICollectionView, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>, axis: Axis = .vertical) {
        self.adapter = adapter
        self.lookup = lookup
        self.axis = axis
        self.scrollView = collectionView
        self.cells = { [weak collectionView] rect in
            (collectionView?.collectionViewLayout.layoutAttributesForElements(in: rect) ?? [])
                .filter { $0.representedElementCategory == .cell }
                .map { ($0.indexPath, $0.frame) }
        }
        self.cell = { [weak collectionView] path in collectionView?.layoutAttributesForItem(at: path)?.frame }
        super.init()
        collectionView.prefetchDataSource = nil
        attach(collectionView)
    }

    /// Attaches to a table view; the rows are named through `lookup`. Its own data prefetching is
    /// turned off (`prefetchDataSource = nil`).
    public init(tableView: UITableView, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>) {
        self.adapter = adapter
        self.lookup = lookup
        self.axis = .vertical
        self.scrollView = tableView
        self.cells = { [weak tableView] rect in
            guard let tableView else { return [] }
            return (tableView.indexPathsForRows(in: rect) ?? []).map { ($0, tableView.rectForRow(at: $0)) }
        }
        self.cell = { [weak tableView] path in
            guard let rect = tableView?.rectForRow(at: path), !rect.isEmpty else { return nil }
            return rect
        }
        super.init()
        tableView.prefetchDataSource = nil
        attach(tableView)
    }

    private func attach(_ scrollView: UIScrollView) {
        // Key-value observing sees every frame without taking the scroll view's delegate; UIKit
        // calls the handlers on the main thread, where the scroll view changes.
        observations = [
            scrollView.observe(\.contentOffset, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.tick() }
            },
            scrollView.observe(\.bounds, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.tick() }
            },
            scrollView.observe(\.contentSize, options: []) { [weak self] _, _ in
                MainActor.assumeIsolated { self?.dataChanged() }
            },
        ]
        scrollView.panGestureRecognizer.addTarget(self, action: #selector(panned(_:)))
    }

    // MARK: Frames

    /// The scroll view's state now, or `nil` while it is not on screen or not laid out.
    private func currentFrame() -> ScrollTracker.Frame? {
        guard let scrollView, scrollView.window != nil, !scrollView.bounds.isEmpty else { return nil }
        let inset = scrollView.adjustedContentInset
        let vertical = axis == .vertical
        return ScrollTracker.Frame(
            time: ProcessInfo.processInfo.systemUptime,
            offset: Double(vertical ? scrollView.contentOffset.y : scrollView.contentOffset.x),
            viewportLength: Double(vertical ? scrollView.bounds.height : scrollView.bounds.width),
            contentLength: Double(vertical ? scrollView.contentSize.height : scrollView.contentSize.width),
            leadingInset: Double(vertical ? inset.top : inset.left),
            trailingInset: Double(vertical ? inset.bottom : inset.right),
            motion: ScrollTracker.Motion(isDragging: scrollView.isDragging, isDecelerating: scrollView.isDecelerating))
    }

    private var geometry: LayoutScrollGeometry<Item> {
        let vertical = axis == .vertical
        let extent: (CGRect) -> Range<Double> = { rect in
            vertical ? Double(rect.minY)..<Double(rect.maxY) : Double(rect.minX)..<Double(rect.maxX)
        }
        let cells = self.cells
        let cell = self.cell
        return LayoutScrollGeometry(
            lookup: lookup,
            frames: { range in
                let length = CGFloat(range.upperBound - range.lowerBound)
                let rect = vertical ? CGRect(x: -1e7, y: CGFloat(range.lowerBound), width: 2e7, height: length)
                                    : CGRect(x: CGFloat(range.lowerBound), y: -1e7, width: length, height: 2e7)
                return MainActor.assumeIsolated { cells(rect) }.map { ($0.0, extent($0.1)) }
            },
            frame: { path in MainActor.assumeIsolated { cell(path) }.map(extent) })
    }

    private func tick() {
        guard let frame = currentFrame() else { return }
        report(adapter.frame(frame, geometry: geometry))
    }

    @objc private func panned(_ pan: UIPanGestureRecognizer) {
        switch pan.state {
        case .began:
            liftReported = false
        case .ended, .cancelled:
            guard !liftReported, let scrollView, let frame = currentFrame() else { return }
            // The finger's velocity (points per second) is opposite to the offset's.
            let finger = pan.velocity(in: scrollView)
            let velocity = -Double(axis == .vertical ? finger.y : finger.x)
            report(adapter.fingerLifted(at: frame, velocity: velocity, targetOffset: nil,
                                        rate: Double(scrollView.decelerationRate.rawValue)))
        default:
            break
        }
    }

    // MARK: What the app calls

    /// Forward your delegate's `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)` here
    /// (after you changed the target, if you snap): the controller then plans for the exact
    /// resting offset instead of one projected from the finger's velocity.
    public func scrollViewWillEndDragging(_ scrollView: UIScrollView, withVelocity velocity: CGPoint,
                                          targetContentOffset: UnsafeMutablePointer<CGPoint>) {
        guard scrollView === self.scrollView, let frame = currentFrame() else {
            return report(PrefetchError(.invalidArgument, "ScrollViewPrefetcher: scrollViewWillEndDragging came from a scroll view this prefetcher is not attached to, or one not on screen"))
        }
        let vertical = axis == .vertical
        do {
            // UIKit gives this velocity in points per millisecond.
            let perSecond = try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: Double(vertical ? velocity.y : velocity.x))
            let target = Double(vertical ? targetContentOffset.pointee.y : targetContentOffset.pointee.x)
            liftReported = true
            report(adapter.fingerLifted(at: frame, velocity: perSecond, targetOffset: target,
                                        rate: Double(scrollView.decelerationRate.rawValue)))
        } catch {
            report(error as? PrefetchError)
        }
    }

    /// The priority for the cell at `indexPath` to ask with: call it from `cellForItemAt`
    /// (`cellForRowAt`) and pass it to `fetchAsync(_:priority:completion:)`.
    public func priority(at indexPath: IndexPath) -> FetchPriority {
        let vertical = axis == .vertical
        let extent = cell(indexPath).map { vertical ? Double($0.minY)..<Double($0.maxY) : Double($0.minX)..<Double($0.maxX) }
        let answer = adapter.priority(at: indexPath, lookup: lookup, extent: extent)
        report(answer.problem)
        return answer.priority
    }

    /// Scrolls one page (VoiceOver's three-finger swipe, Page Up / Page Down) with animation,
    /// telling the controller the destination first. Call it from your `accessibilityScroll(_:)`
    /// override or a `UIKeyCommand`; it returns `false` when there is nothing to scroll.
    @discardableResult
    public func scrollPage(_ direction: ScrollTranslation.PageDirection) -> Bool {
        guard let scrollView, let frame = currentFrame() else {
            report(PrefetchError(.invalidArgument, "ScrollViewPrefetcher.scrollPage: the scroll view is gone or not on screen"))
            return false
        }
        let target = adapter.pageScroll(direction, from: frame, overlap: Double(pageOverlap))
        guard target != frame.offset else { return false }
        var offset = scrollView.contentOffset
        if axis == .vertical { offset.y = CGFloat(target) } else { offset.x = CGFloat(target) }
        scrollView.setContentOffset(offset, animated: true)
        UIAccessibility.post(notification: .pageScrolled, argument: nil)
        return true
    }

    /// The data changed under stable item ids (a diffable snapshot was applied).
    public func dataChanged() {
        adapter.dataChanged()
        tick()
    }

    /// The data was reloaded and index paths may name other data (`reloadData()`).
    public func dataReloaded() {
        adapter.dataReloaded()
        tick()
    }

    /// Stops watching the scroll view and withdraws every request.
    public func detach() {
        observations.forEach { $0.invalidate() }
        observations = []
        scrollView?.panGestureRecognizer.removeTarget(self, action: #selector(panned(_:)))
        adapter.detach()
    }

    private func report(_ problem: PrefetchError?) {
        if let problem { assertionFailure("PrefetchUIKit: \(problem.message)") }
    }
}

extension ScrollViewPrefetcher {
    /// Attaches to a collection view with a diffable data source whose item identifiers are the
    /// fetcher's ids: the usual set-up in one line.
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        collectionView: UICollectionView, dataSource: UICollectionViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard
    ) where Item: Sendable {
        self.init(collectionView: collectionView,
                  lookup: ScrollViewPrefetcher<Item>.lookup({ [weak dataSource] in dataSource?.itemIdentifier(for: $0) },
                                      { [weak dataSource] in dataSource?.indexPath(for: $0) }),
                  adapter: ScrollAdapter(fetcher: fetcher, policy: policy) { $0 })
    }

    /// Attaches to a table view with a diffable data source whose item identifiers are the
    /// fetcher's ids.
    public convenience init<Section: Hashable & Sendable, Value: Sendable>(
        tableView: UITableView, dataSource: UITableViewDiffableDataSource<Section, Item>,
        fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy = PrefetchPolicies.Adaptive.standard
    ) where Item: Sendable {
        self.init(tableView: tableView,
                  lookup: ScrollViewPrefetcher<Item>.lookup({ [weak dataSource] in dataSource?.itemIdentifier(for: $0) },
                                      { [weak dataSource] in dataSource?.indexPath(for: $0) }),
                  adapter: ScrollAdapter(fetcher: fetcher, policy: policy) { $0 })
    }

    /// A lookup over a diffable data source's two O(1) questions, asked on the main actor.
    private static func lookup(_ item: @escaping @MainActor (IndexPath) -> Item?,
                               _ indexPath: @escaping @MainActor (Item) -> IndexPath?) -> ItemLookup<Item> {
        ItemLookup(item: { path in MainActor.assumeIsolated { item(path) } },
                   indexPath: { id in MainActor.assumeIsolated { indexPath(id) } })
    }
}
#endif
