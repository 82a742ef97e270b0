import Foundation
import PrefetchKit
import PrefetchUIKit

/// The headless views are scroll surfaces, as `UICollectionView` and `UITableView` are in
/// `PrefetchUIKit`'s bindings: a `ScrollViewPrefetcher` attaches to one exactly as an app's
/// attaches to UIKit's, and hears what UIKit's observers would hear, in UIKit's order.
///
/// - An offset or a size change: after the scroll physics of a step (UIKit's `contentOffset`
///   observer, before the layout pass) and after a pass that moved the content (a clamp, a
///   jump); a content-size change when the layout was prepared anew.
/// - The pan gesture: began at the first ``drag(by:)`` of a drag, ended at ``fling(velocity:)``
///   or ``endDragging()`` with the finger's velocity (the content's, negated).
/// - The memory warning: ``handleMemoryPressure()``.
///
/// The prefetcher reads the view through ``reading(along:)`` and the layout, never through the
/// view's own prefetch planner, so what the bench measures on a headless view is what an app's
/// prefetcher decides on an iOS device given the same callbacks.
extension ItemScrollView: ScrollSurface {
    /// The view's values along its vertical axis, or `nil` while it has no area.
    public func reading(along axis: ScrollAxis) -> SurfaceReading? {
        guard hasArea else { return nil }
        return SurfaceReading(offset: contentOffsetStorage.y, viewportLength: size.height, contentLength: contentSize.height,
                              leadingInset: contentInset.top, trailingInset: contentInset.bottom, isDragging: isDragging,
                              isDecelerating: isDecelerating, decelerationRate: decelerationRate.rawValue)
    }

    /// The cells of the layout that meet `range` of the vertical axis.
    /// - Complexity: O(items in the range), the layout's query.
    public func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        var result: [(IndexPath, Range<Double>)] = []
        let rect = CGRect(x: contentOffsetStorage.x, y: range.lowerBound, width: size.width, height: range.upperBound - range.lowerBound)
        layoutObject.forEachItem(in: rect) { indexPath, frame in result.append((indexPath, frame.minY..<frame.maxY)) }
        return result
    }

    /// The extent of the item at `indexPath` along the vertical axis, or `nil` when the layout has none.
    public func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? {
        layoutObject.frameForItem(at: indexPath).map { $0.minY..<$0.maxY }
    }

    /// Scrolls with animation to `offset` (``setContentOffset(_:animated:)``).
    public func animateScroll(to offset: Double, along axis: ScrollAxis) {
        setContentOffset(CGPoint(x: contentOffsetStorage.x, y: offset), animated: true)
    }

    /// Turns the view's own data prefetching off: its prefetch data source is set to nil.
    public func stopDataPrefetching() { host?.hostStopPrefetching() }

    /// Registers `events` as the view's one scroll observer (a second registration replaces the
    /// first); the returned function unregisters it.
    public func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        let token = ScrollObserverToken()
        scrollObserver = (token, events)
        lastNotified = nil
        return { [weak self] in
            if self?.scrollObserver?.token === token { self?.scrollObserver = nil }
        }
    }

    /// A headless view has no VoiceOver: the status is recorded as an event's absence (nothing happens).
    public func announcePageScrolled(_ status: String) {}

    // MARK: What the observers hear

    /// Tells the observer that the offset or the size changed since it last heard, or that the
    /// layout was prepared anew; nothing while it has no area or heard this reading already.
    func notifyScrollObserver() {
        guard let events = scrollObserver?.events, hasArea else { return }
        let now = NotifiedGeometry(offset: contentOffsetStorage.y, size: size)
        let layoutChanged = contentSizeChangePending
        guard layoutChanged || now != lastNotified else { return }
        contentSizeChangePending = false
        lastNotified = now
        events.changed(layoutChanged)
    }

    /// The pan gesture began.
    func notifyDragBegan() { scrollObserver?.events.dragBegan() }

    /// The pan gesture ended; the finger moved against the content, at `velocity` (content points per second).
    func notifyDragEnded(contentVelocity velocity: Double) {
        scrollObserver?.events.dragEnded(CGPoint(x: 0, y: -velocity))
    }

    /// The system warned that memory runs short.
    func notifyMemoryWarning() { scrollObserver?.events.memoryWarning() }
}

/// Identifies one registration of a scroll observer, so a stale unregistration leaves a newer one alone.
final class ScrollObserverToken {}

/// What the scroll observer last heard: the offset and the size.
struct NotifiedGeometry: Equatable {
    var offset: Double
    var size: CGSize
}
