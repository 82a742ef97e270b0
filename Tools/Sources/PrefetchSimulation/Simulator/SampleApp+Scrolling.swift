import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchUIKit

// What the app's own code does to the view: animated scrolls, and items arriving or leaving above.
extension SampleApp {
    /// The app's code scrolls (an animated `scrollToItem`, a status-bar tap, a restore): it tells
    /// the prefetcher where the content goes (`willScroll(to:animated:)`), then moves the view,
    /// with animation along UIKit's ease-in-out curve for `duration` seconds; the animation's end
    /// reaches the prefetcher as `didEndScrollingAnimation()` after its last frame.
    public func scroll(to offset: Double, animated: Bool, duration: Double = ScrollGesture.defaultAnimationDuration) {
        let target = surface.contentOffsetRange.clamp(offset)
        prefetcher?.willScroll(to: target, animated: animated)
        surface.setContentOffset(CGPoint(x: surface.contentOffset.x, y: target), animated: animated, duration: duration, curve: .easeInOut)
        scrollAnimationRunning = animated && surface.isScrollAnimating
    }

    /// The app scrolls with animation to `item`'s top (`scrollToItem(at:at: .top, animated: true)`)
    /// through ``scroll(to:animated:duration:)``; an item out of range is clamped to the last.
    public func scroll(toItem item: Int, duration: Double = ScrollGesture.defaultAnimationDuration) {
        let path = IndexPath(indexes: [0, min(max(item, 0), max(itemCount - 1, 0))])
        guard let extent = surface.cellExtent(at: path, along: .vertical) else { return }
        scroll(to: extent.lowerBound - surface.contentInset.top, animated: true, duration: duration)
    }

    /// New items arrive above the first (a feed's new posts, a chat's older messages), and the
    /// app keeps the user's place as a diffable snapshot with UIKit's anchoring does: the view's
    /// batch update grows the content (the prefetcher hears a content-size change at the old
    /// offset), then, in the same frame, the offset moves by the content's growth, whatever the
    /// user is doing (a drag goes on under the finger). The new items get stable numbers below the
    /// first's (``indexBase``); the identifier closure is asked for them.
    /// - Throws: ``SimulationError`` for a count below 1; the view's error when it refuses the update.
    public func insertAbove(count: Int) throws {
        guard count >= 1 else { throw SimulationError(path: "insertAbove.count", "\(count) items; an insert needs at least 1") }
        try changeAbove(by: count)
    }

    /// The first `count` items are deleted (at most all but one), the app keeping the user's
    /// place as ``insertAbove(count:)`` does: the content shrinks, then the offset follows.
    /// - Throws: ``SimulationError`` for a count below 1; the view's error when it refuses the update.
    public func deleteAbove(count: Int) throws {
        guard count >= 1 else { throw SimulationError(path: "deleteAbove.count", "\(count) items; a delete needs at least 1") }
        try changeAbove(by: -min(count, itemCount - 1))
    }

    func changeAbove(by count: Int) throws {
        guard count != 0 else { return }
        let before = surface.contentSize.height
        let paths = (0..<abs(count)).map { IndexPath(indexes: [0, $0]) }
        let (oldCount, oldBase) = (itemCount, indexBase)
        (itemCount, indexBase) = (itemCount + count, indexBase - count)
        do {
            try surface.performBatchUpdates { count > 0 ? surface.insert(paths) : surface.delete(paths) }
        } catch {
            (itemCount, indexBase) = (oldCount, oldBase)
            throw error
        }
        surface.shiftContentOffset(by: surface.contentSize.height - before)
        listRowsChanged()
    }
}
