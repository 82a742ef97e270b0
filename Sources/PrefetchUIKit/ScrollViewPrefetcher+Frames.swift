import Foundation
import PrefetchKit

// The frames a ScrollViewPrefetcher reads off its surface and sends to the adapter.
extension ScrollViewPrefetcher {
    // MARK: Frames

    /// The scroll view's frame now, or `nil` while it is gone, off screen or not laid out.
    func frame(motion override: ScrollTracker.Motion? = nil) -> ScrollTracker.Frame? {
        surface?.reading(along: axis).map { frame(of: $0, motion: override) }
    }

    func frame(of reading: SurfaceReading, motion override: ScrollTracker.Motion?) -> ScrollTracker.Frame {
        let time = now()
        var motion = override ?? ScrollTracker.Motion(isDragging: reading.isDragging, isDecelerating: reading.isDecelerating)
        // A move with neither flag is programmatic: the tracker tells a jump from an animation. A
        // move that comes with a new viewport or content length is the layout's (a rotation, a clamp
        // after the content shrank): a jump, never an animation.
        if override == nil, motion == .idle, let sent, reading.offset != sent.offset,
           reading.viewportLength == sent.viewportLength, reading.contentLength == sent.contentLength {
            motion = .animating
        }
        return ScrollTracker.Frame(time: time, offset: reading.offset, viewportLength: reading.viewportLength,
                                   contentLength: reading.contentLength, leadingInset: reading.leadingInset,
                                   trailingInset: reading.trailingInset, motion: motion,
                                   decelerationRate: reading.decelerationRate)
    }

    func tick(motion: ScrollTracker.Motion? = nil, force: Bool = false) {
        guard let reading = surface?.reading(along: axis) else { return }
        let force = force || adapter.pendingLayout != nil   // a waiting layout change is planned now
        adapter.dropPendingLayout()
        if motion == nil, !force, reading == lastReading { return }   // the same step, heard again
        lastReading = reading
        let frame = frame(of: reading, motion: motion)
        announcePageIfArrived(frame)
        if let problem = adapter.frame(frame, geometry: geometry) { return onProblem(problem) }
        sent = frame
        quietCheck.frameSent(animating: frame.motion == .animating)
    }

    func announcePageIfArrived(_ frame: ScrollTracker.Frame) {
        guard let page = pendingPage else { return }
        if frame.motion == .dragging { pendingPage = nil; return }   // the user took over
        guard abs(frame.offset - page.target) < 0.5 || frame.time >= page.deadline else { return }
        pendingPage = nil
        announcePosition(of: frame)
    }

    func announcePosition(of frame: ScrollTracker.Frame) {
        let position = pagePosition(offset: frame.offset, range: frame.range, step: frame.viewportLength - max(0, pageOverlap))
        surface?.announcePageScrolled(pageStatus(position.page, position.count))
    }

    var geometry: LayoutScrollGeometry<Item> {
        let axis = self.axis
        let surface = self.surface
        return LayoutScrollGeometry(
            lookup: lookup,
            frames: { [weak surface] range in MainActor.assumeIsolated { surface?.cellsShown(meeting: range, along: axis) ?? [] } },
            frame: { [weak surface] path in MainActor.assumeIsolated { surface?.shownCellExtent(at: path, along: axis) } })
    }

    func report(_ error: any Error) {
        onProblem(error as? PrefetchError ?? PrefetchError(.invalidArgument, "\(error)", cause: error))
    }
}
