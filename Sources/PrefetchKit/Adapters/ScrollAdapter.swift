import Foundation

/// Everything an adapter for a UI toolkit decides, in one portable object: it turns a scroll
/// view's frames and events into a ``PrefetchController``'s updates, answers the priority a cell
/// asks with, and decides when a row may start work itself.
///
/// `PrefetchUIKit` and `PrefetchSwiftUI` only read values off the views and call it; what it
/// decides runs, and is tested, everywhere. Bad input never traps here: each call returns the
/// problem as a ``PrefetchError`` (naming the value) and does nothing, and the Apple adapters turn
/// it into an `assertionFailure` in debug builds and a no-op in release builds.
///
/// ```swift
/// let adapter = ScrollAdapter(fetcher: fetcher, policy: PrefetchPolicies.adaptive) { (id: Model.ID) in id }
/// adapter.frame(ScrollTracker.Frame(time: t, offset: y, viewportLength: h, contentLength: total, motion: .dragging),
///               geometry: rows)
/// ```
///
/// Not thread-safe: use it from one isolation domain (the main actor, in an app).
package final class ScrollAdapter<Item: Hashable> {
    /// The controller the frames go to; set its ``PrefetchController/target`` and
    /// ``PrefetchController/policy`` as needed.
    package let controller: PrefetchController<Item>
    /// When a row may start work itself.
    package var admission: RowAdmission
    private var tracker = ScrollTracker()
    /// The state the controller was last given: what it saw of the scroll view at the last frame.
    package private(set) var lastState: ScrollState?
    private let isShutDown: () -> Bool

    /// Creates an adapter over `controller`.
    ///
    /// - Parameters:
    ///   - controller: The controller the adapter feeds a frame at a time; it keeps it.
    ///   - admission: When a row the controller does not know may start its own load.
    ///   - isShutDown: Whether the work behind the controller's target was shut down; the
    ///     adapter then does nothing and reports it. `nil` (the default) asks the target, when it
    ///     is a fetcher's (``AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``).
    package init(controller: PrefetchController<Item>, admission: RowAdmission = RowAdmission(),
                 isShutDown: (() -> Bool)? = nil) {
        self.controller = controller
        self.admission = admission
        self.isShutDown = isShutDown ?? { [weak controller] in (controller?.target as? any ShutDownReporting)?.isShutDown ?? false }
    }

    /// Creates an adapter whose controller prefetches through `fetcher`, naming each item's data
    /// with `identifier` and, when the feed says, sizing it with `expectedBytes` (see
    /// ``AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``).
    package convenience init<ID: Hashable & Sendable, Value: Sendable>(
        fetcher: AsyncFetcher<ID, Value>, policy: any PrefetchPolicy = PrefetchPolicies.adaptive,
        admission: RowAdmission = RowAdmission(), identifier: @escaping (Item) -> ID?, expectedBytes: ((Item) -> Int?)? = nil
    ) {
        let controller = PrefetchController<Item>(policy: policy, target: fetcher.prefetchTarget(identifier: identifier, expectedBytes: expectedBytes))
        self.init(controller: controller, admission: admission, isShutDown: { [weak fetcher] in fetcher?.isShutDown ?? true })
    }

    // MARK: Scrolling

    /// Plans one frame: the tracker's ``ScrollState`` for it, sent to the controller with `geometry`.
    ///
    /// - Returns: `nil`, or the problem (a bad frame, a shut-down fetcher), in which case nothing happened.
    @discardableResult
    package func frame<Geometry: ItemGeometry>(_ frame: ScrollTracker.Frame, geometry: Geometry) -> PrefetchError?
    where Geometry.Item == Item {
        if let problem = shutDownProblem() { return problem }
        do {
            let state = try tracker.frame(frame)
            // A move nobody announced adds its first frame's screen to the plan held; if it goes on (an
            // animation) its later frames hold that plan until it stops.
            guard !tracker.holdsPlan else { return nil }
            lastState = state
            if tracker.startsUnannouncedMove {
                controller.updateKeepingPlan(state, geometry: geometry)
            } else {
                controller.update(state, geometry: geometry)
            }
            return nil
        } catch {
            return Self.problem(error)
        }
    }

    /// The finger lifted at `frame` with `velocity` (points per second); `targetOffset` is where the
    /// toolkit says the motion stops, `nil` when it does not say. The next frames coast there.
    ///
    /// - Returns: `nil`, or the problem (a rate outside (0, 1), a non-finite value, a frame whose
    ///   lengths or insets are unusable), in which case the frames go on as before.
    @discardableResult
    package func fingerLifted(at frame: ScrollTracker.Frame, velocity: Double, targetOffset: Double?,
                             rate: Double = ScrollTranslation.normalDecelerationRate) -> PrefetchError? {
        if let problem = shutDownProblem() { return problem }
        do {
            // The frame's lengths and insets make the range the resting offset is clamped to.
            try frame.validate()
            try tracker.fingerLifted(at: frame.time, offset: frame.offset, velocity: velocity, targetOffset: targetOffset,
                                     rate: rate, range: frame.range)
            return nil
        } catch {
            return Self.problem(error)
        }
    }

    /// An animated scroll the adapter starts itself (to an item, a page) goes to `target`: the
    /// controller plans for the destination from the next frame on.
    ///
    /// A target or time that is not finite is ignored (the frames go on as the toolkit reports
    /// them), and a duration that is NaN or never ends counts as ``ScrollTranslation/animatedScrollDuration``:
    /// either would make every frame of the animation a state the controller refuses.
    package func willAnimate(to target: Double, at time: Double, duration: Double = ScrollTranslation.animatedScrollDuration) {
        guard target.isFinite, time.isFinite else { return }
        let duration = (time + duration).isFinite ? duration : ScrollTranslation.animatedScrollDuration
        tracker.animating(to: target, at: time, duration: duration)
    }

    /// A layout change waiting for the geometry that goes with it: when it was heard, and the
    /// offset and content length of the frame before it.
    package struct PendingLayout: Sendable, Hashable {
        var time: Double
        var offset: Double
        var contentLength: Double
    }

    /// The layout change heard and not yet planned, if any (see ``layoutChanged(at:offset:contentLength:)``).
    package private(set) var pendingLayout: PendingLayout?

    /// Items were inserted, removed or resized at `time`, under a frame at `offset` whose content
    /// was `contentLength` long. Both toolkits report the offset that keeps the user's place after
    /// the change, at once (UIKit in the same layout pass, SwiftUI with the new geometry), and the
    /// two are one event: planned now, the new layout at the old offset would withdraw what is on
    /// screen and request what is not, and the offset's jump would read as a fling. The caller
    /// holds the plan until ``layoutSettled(offset:contentLength:at:)`` or, where no geometry
    /// follows, until ``pendingLayoutTimedOut(at:)``.
    package func layoutChanged(at time: Double, offset: Double, contentLength: Double) {
        if let pending = pendingLayout {   // a second change before the geometry: measured from the first
            pendingLayout = PendingLayout(time: time, offset: pending.offset, contentLength: pending.contentLength)
        } else {
            pendingLayout = PendingLayout(time: time, offset: offset, contentLength: contentLength)
        }
    }

    /// The geometry after a pending layout change, heard at `time`: the content is
    /// `contentLength` long and the offset is `offset`. The part of the offset's move that the
    /// layout explains kept the user's place and is no motion of theirs:
    ///
    /// - heard in the same turn as the frame before it (within ``ScrollTracker/minimumInterval``:
    ///   UIKit moves the offset in the layout pass that changed the content), the whole move;
    /// - heard a frame later, with the user's motion in it (SwiftUI's next geometry, an offset a
    ///   UIKit app moves a frame late), the content's growth, when the growth explains the move
    ///   better than the motion the last frame's speed predicts alone. Rows measured below the
    ///   screen grow the content under a fling without moving it, and a growth close to one
    ///   frame's travel must not cancel the fling; rows estimated before they are measured
    ///   (SwiftUI) move the offset by about their growth.
    ///
    /// Nothing happens when no change waits.
    /// - Returns: Whether a change was waiting (the caller plans the frame now).
    @discardableResult
    package func layoutSettled(offset: Double, contentLength: Double, at time: Double) -> Bool {
        guard let pending = pendingLayout else { return false }
        pendingLayout = nil
        let growth = contentLength - pending.contentLength, moved = offset - pending.offset
        guard growth != 0, moved != 0 else { return true }
        let elapsed = tracker.lastFrameTime.map { max(0, time - $0) } ?? 0
        if elapsed < ScrollTracker.minimumInterval {
            tracker.shift(by: moved)
        } else {
            let expected = tracker.velocity * elapsed
            if abs(moved - growth - expected) < abs(moved - expected) { tracker.shift(by: growth) }
        }
        return true
    }

    /// Whether a pending layout change has waited more than the quiet time at `time` with no
    /// geometry after it (rows replaced at the same length, at rest): it is dropped, and the
    /// caller plans where the view is.
    package func pendingLayoutTimedOut(at time: Double) -> Bool {
        guard let pending = pendingLayout, time - pending.time > ScrollTracker.minimumInterval else { return false }
        pendingLayout = nil
        return true
    }

    /// Forgets a pending layout change: the caller plans the frame now, as it is.
    package func dropPendingLayout() { pendingLayout = nil }

    /// How long a caller waits for the geometry after a layout change before it plans without it:
    /// two of the tracker's shortest frame intervals.
    package static var layoutQuietTime: Duration { .seconds(2 * ScrollTracker.minimumInterval) }

    /// The toolkit said an animated scroll ended (UIKit's `scrollViewDidEndScrollingAnimation`,
    /// SwiftUI's phase leaving `.animating`): the next frame rests where it is.
    package func animationEnded() { tracker.animationEnded() }

    /// Whether the last frames belong to an animation nobody announced, whose plan is held.
    package var holdsPlanForAnimation: Bool { tracker.holdsPlan }

    /// Whether the last frame belongs to an animation whose plan is held and moves the content a
    /// viewport of `viewportLength` or more per 60 Hz display frame (at 120 Hz, half a viewport per
    /// frame): every cell it shows is gone within a sixtieth of a second.
    package func animationFliesPast(viewportLength: Double) -> Bool {
        tracker.holdsPlan && viewportLength.isFinite && viewportLength > 0 && tracker.lastStepSpeed / 60 >= viewportLength
    }

    /// Whether an animation nobody announced has gone quiet at `time`: a frame at rest ends it.
    package func unannouncedAnimationEnded(at time: Double) -> Bool { tracker.unannouncedAnimationEnded(at: time) }

    /// A page scroll (VoiceOver's three-finger swipe, Page Up / Page Down) from `frame`: its
    /// destination, which the adapter should scroll to with animation. The controller plans for
    /// the destination from the next frame on, as for any programmatic scroll with a known end.
    package func pageScroll(_ direction: ScrollTranslation.PageDirection, from frame: ScrollTracker.Frame,
                           overlap: Double = 0) -> Double {
        let target = ScrollTranslation.pageDestination(from: frame.offset, direction: direction, viewportLength: frame.viewportLength,
                                                       overlap: overlap, range: frame.range)
        willAnimate(to: target, at: frame.time)
        return target
    }

    // MARK: Data

    /// The data changed under stable item ids (a diffable snapshot was applied): the next frame
    /// reads the whole plan again and withdraws the items that are gone.
    package func dataChanged() { controller.invalidateLayout() }

    /// Every index path may name other data now (`reloadData()` with index paths as items): the
    /// next frame removes every request and plans afresh.
    package func dataReloaded() { controller.invalidateItems() }

    /// Withdraws every request (the view goes away).
    package func detach() { controller.withdrawAll() }

    // MARK: Questions

    /// The priority for the cell at `indexPath` to ask with (from `cellForItemAt`).
    ///
    /// - Parameters:
    ///   - indexPath: The cell's index path, as `cellForItemAt` has it.
    ///   - lookup: How index paths name items now (after the latest data change).
    ///   - extent: The cell's extent along the axis, so an item outside the plan is ranked
    ///     by the forecast.
    /// - Returns: The priority, and a problem when `indexPath` names no item any more (stale after
    ///   an update): the priority is then ``FetchPriority/visible``.
    package func priority(at indexPath: IndexPath, lookup: ItemLookup<Item>,
                         extent: Range<Double>? = nil) -> (priority: FetchPriority, problem: PrefetchError?) {
        guard let item = lookup.item(indexPath) else {
            return (.visible, PrefetchError(.invalidArgument,
                                            "index path \(indexPath) names no item: it is stale after an update, or out of range"))
        }
        return (controller.priority(for: item, extent: extent), nil)
    }

    /// What a row showing `item` that appeared at `appearedAt` does now (see ``RowAdmission``).
    package func rowDecision(for item: Item, appearedAt: Double, now: Double) -> RowAdmission.Decision {
        admission.decision(requested: controller.requestedPriority(of: item), appearedAt: appearedAt, now: now)
    }

    // MARK: Problems

    private func shutDownProblem() -> PrefetchError? {
        guard isShutDown() else { return nil }
        return PrefetchError(.shutdown, "the fetcher behind this scroll adapter was shut down; detach the adapter before shutting the fetcher down")
    }

    private static func problem(_ error: any Error) -> PrefetchError {
        error as? PrefetchError ?? PrefetchError(.invalidArgument, "\(error)", cause: error)
    }
}
