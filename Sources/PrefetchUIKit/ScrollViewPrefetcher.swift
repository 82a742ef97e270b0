import Foundation
import PrefetchKit

/// Feeds a ``/PrefetchKit/PrefetchController`` from a `UICollectionView` or a `UITableView` and
/// stands in for UIKit's fixed prefetch window.
///
/// Create it with one of the UIKit initialisers (`init(collectionView:dataSource:fetcher:policy:)`
/// and the others in this module) and keep it in a stored property of the view controller for as
/// long as the view lives:
///
/// ```swift
/// prefetcher = ScrollViewPrefetcher(collectionView: collectionView, dataSource: dataSource, fetcher: fetcher)
/// // in the cell provider:
/// fetcher.fetchAsync(id, priority: prefetcher.priority(at: indexPath)) { result in /* fill the cell */ }
/// // after dataSource.apply(snapshot):
/// prefetcher.dataChanged()
/// ```
///
/// It observes the scroll view (its content offset, bounds and content size, and its pan gesture)
/// and turns what it sees into frames for PrefetchKit's adapter (<doc:/PrefetchKit/AdaptingAScrollView>). UIKit reports one
/// scroll step to both the offset and the bounds observer: the prefetcher sends each reading of
/// the scroll view once. A content-size change re-reads an unchanged offset: the tracker keeps
/// the drag's velocity across it. A move while UIKit reports neither dragging nor
/// decelerating is a programmatic scroll: tell the prefetcher where it goes with
/// `willScroll(to:animated:)` (an offset or an index path) before `scrollToItem` or
/// `setContentOffset(_:animated:)`, and
/// forward `scrollViewDidEndScrollingAnimation` to ``didEndScrollingAnimation()``. Untold, its first
/// frame is planned as a jump and the frames that follow a display frame apart (an animation)
/// keep that plan, cells on screen asking at visible priority, until the motion stops. Told or
/// untold, an animation whose end nobody forwards ends by itself: 0.1 s
/// (the scroll tracker's quiet time) after its last frame, with no callback, the
/// prefetcher tells the controller the view rests and plans the screen where it landed at visible
/// priority.
///
/// On a memory warning it calls its controller's ``/PrefetchKit/PrefetchController/handleMemoryPressure()``:
/// the prefetches off screen are withdrawn and the fetcher keeps only what is on screen (and
/// where a fling lands) for half a second. Set ``/PrefetchKit/PrefetchController/networkConditions``
/// on its ``controller`` from a `NetworkConditionsMonitor` (on Apple platforms, where it reads
/// `NWPathMonitor`) to prefetch less in Low Data Mode.
///
/// Only the bindings to UIKit's types are Apple-only; this class runs, and is tested, on every
/// platform. Use it on the main actor. Dropping it without ``detach()`` is safe: the prefetches it
/// asked for are withdrawn when its controller's target goes away.
@MainActor
public final class ScrollViewPrefetcher<Item: Hashable> {
    /// The portable adapter that makes every decision.
    package let adapter: ScrollAdapter<Item>
    /// Names the view's index paths as items.
    package let lookup: ItemLookup<Item>
    /// The axis the list scrolls along.
    package let axis: ScrollAxis
    /// The part of a viewport that a page scroll keeps in view, in points.
    public var pageOverlap = 0.0
    /// The status VoiceOver reads after a page scroll, from the page and the number of pages
    /// (one-based). Localise it here; the default is "Page 2 of 5".
    public var pageStatus: @MainActor (_ page: Int, _ pageCount: Int) -> String = { "Page \($0) of \($1)" }
    /// What happens to bad input (the scroll view is gone, an index path is stale, a velocity in
    /// the wrong unit, the fetcher was shut down): an `assertionFailure` naming the value by
    /// default, which stops debug builds and is ignored in release builds. Set it to log instead.
    public var onProblem: @MainActor (PrefetchError) -> Void = { assertionFailure("PrefetchUIKit: \($0.message)") }

    /// The controller the adapter feeds.
    public var controller: PrefetchController<Item> { adapter.controller }

    weak var surface: (any ScrollSurface)?
    /// The box a UIKit initialiser made around its view (which holds the view weakly), kept alive here.
    private var retainedSurface: (any ScrollSurface)?
    let now: @MainActor () -> Double
    /// The last frame sent.
    var sent: ScrollTracker.Frame?
    /// The last reading: the same reading again is an echo of one step (offset and bounds).
    var lastReading: SurfaceReading?
    private var liftReported = false
    /// A page scroll under way: where it goes, and when to announce it at the latest.
    var pendingPage: (target: Double, deadline: Double)?
    /// Stops the observers the surface registered.
    private var unbind: @MainActor () -> Void = {}
    /// Ends an animation whose end nobody reports, a quiet time after its last frame.
    let quietCheck: QuietAnimationCheck

    /// Attaches to `surface`: turns its own data prefetching off and registers the observers.
    ///
    /// The UIKit initialisers call this one with a `UICollectionView` or a `UITableView`; call it
    /// yourself for a scroll view of your own (or a headless one in tests).
    /// - Parameters:
    ///   - surface: The scroll view, held weakly.
    ///   - lookup: Names the surface's index paths as items, and back.
    ///   - controller: Plans each frame; its target receives the plan (a fetcher's
    ///     ``/PrefetchKit/AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``, or your own).
    ///   - axis: The axis the surface scrolls along.
    ///   - clock: The clock that times each reading (the continuous clock by default, the one an
    ///     ``/PrefetchKit/AsyncFetcher`` runs on; a `ManualClock` from PrefetchTesting in a test).
    ///   - schedule: Runs an action once, on the main actor, after a delay: how the prefetcher
    ///     checks, a quiet time after an animated frame, that an animation nobody ended has ended,
    ///     and, a moment after the content changed at rest, that the offset did not follow.
    ///     `nil` (the default) is a task that sleeps on `clock`; a simulation that steps its
    ///     frames itself passes its own, so the check runs at a step it controls.
    public convenience init<C: Clock>(surface: any ScrollSurface, lookup: ItemLookup<Item>, controller: PrefetchController<Item>,
                                      axis: ScrollAxis = .vertical, clock: C = ContinuousClock(),
                                      schedule: (@MainActor (_ delay: Duration, _ action: @escaping @MainActor () -> Void) -> Void)? = nil)
    where C.Duration == Duration {
        self.init(surface: surface, lookup: lookup, adapter: ScrollAdapter(controller: controller), axis: axis,
                  now: QuietAnimationCheck.seconds(on: clock), schedule: schedule ?? QuietAnimationCheck.sleeping(on: clock))
    }

    /// Attaches to `surface` with `adapter`, which makes every decision (see the public initialiser).
    package init(surface: any ScrollSurface, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>, axis: ScrollAxis = .vertical,
                 now: @escaping @MainActor () -> Double = { ProcessInfo.processInfo.systemUptime },
                 schedule: (@MainActor (_ delay: Duration, _ action: @escaping @MainActor () -> Void) -> Void)? = nil) {
        self.surface = surface
        self.lookup = lookup
        self.adapter = adapter
        self.axis = axis
        self.now = now
        quietCheck = QuietAnimationCheck(now: now, schedule: schedule ?? QuietAnimationCheck.sleepThenRun)
        quietCheck.onQuiet = { [weak self] in self?.animationWentQuiet() }
        surface.stopDataPrefetching()
        unbind = surface.observeScrolling(SurfaceEvents(
            changed: { [weak self] layout in MainActor.assumeIsolated { self?.surfaceChanged(layoutChanged: layout) } },
            dragBegan: { [weak self] in MainActor.assumeIsolated { self?.dragBegan() } },
            dragEnded: { [weak self] finger in MainActor.assumeIsolated { self?.dragEnded(fingerVelocity: finger) } },
            memoryWarning: { [weak self] in MainActor.assumeIsolated { self?.controller.handleMemoryPressure() } }))
    }

    /// Attaches to `surface`, a box the prefetcher keeps alive (the UIKit initialisers' boxes hold
    /// their view weakly).
    convenience init(retaining surface: any ScrollSurface, lookup: ItemLookup<Item>, adapter: ScrollAdapter<Item>, axis: ScrollAxis) {
        self.init(surface: surface, lookup: lookup, adapter: adapter, axis: axis)
        retainedSurface = surface
    }

    /// Attaches to `surface` (kept alive) with a diffable data source whose item identifiers are
    /// the fetcher's ids (and, when given, each item's size).
    convenience init<Value: Sendable>(retaining surface: any ScrollSurface, dataSource: some DiffableItems<Item>,
                                      fetcher: AsyncFetcher<Item, Value>, policy: any PrefetchPolicy, axis: ScrollAxis,
                                      expectedBytes: ((Item) -> Int?)? = nil) where Item: Sendable {
        self.init(retaining: surface, lookup: diffableLookup(dataSource),
                  adapter: ScrollAdapter(fetcher: fetcher, policy: policy, identifier: { $0 }, expectedBytes: expectedBytes), axis: axis)
    }

    // MARK: What the observers report

    /// The offset, the bounds or the content size changed; `layoutChanged` when the content size
    /// did (cells moved: the controller reads the plan again).
    func surfaceChanged(layoutChanged: Bool = false) {
        if layoutChanged {
            adapter.dataChanged()
            // The content changed under an unchanged offset (a snapshot applied): the offset may
            // follow at once to keep the user's place, and the two are one event
            // (`ScrollAdapter.layoutChanged`). The next callback resolves it; at rest, where none
            // may come, a check a moment later plans it if the offset did not follow.
            if let sent, let reading = surface?.reading(along: axis), reading.offset == sent.offset,
               reading.contentLength != sent.contentLength {
                adapter.layoutChanged(at: now(), offset: sent.offset, contentLength: sent.contentLength)
                if !reading.isDragging, !reading.isDecelerating {
                    quietCheck.schedule(ScrollAdapter<Item>.layoutQuietTime) { [weak self] in self?.flushPendingLayout() }
                }
                return
            }
        } else if adapter.pendingLayout != nil, let reading = surface?.reading(along: axis),
                  adapter.layoutSettled(offset: reading.offset, contentLength: reading.contentLength, at: now()) {
            return tick(force: true)
        }
        tick(force: layoutChanged)
    }

    /// A layout change waiting for the offset that keeps the user's place: planned at the next
    /// callback, or at the first question a step later.
    private func flushPendingLayout() {
        guard adapter.pendingLayoutTimedOut(at: now()) else { return }
        tick(force: true)
    }

    /// The pan gesture began: a new drag, whose lift is not reported yet.
    func dragBegan() { liftReported = false }

    /// The pan gesture ended with the finger's velocity (points per second; the content moves
    /// against the finger). Ignored when the delegate's `scrollViewWillEndDragging` already
    /// reported the lift.
    func dragEnded(fingerVelocity finger: CGPoint) {
        guard !liftReported else { return }
        do {
            let velocity = -Double(axis == .vertical ? finger.y : finger.x)
            lift(velocity: try ScrollTranslation.checkedPointsPerSecond(velocity), target: nil)
        } catch {
            report(error)
        }
    }

    /// The finger lifted: `scrollViewWillEndDragging`'s velocity along the axis (points per
    /// millisecond, as UIKit gives it) and target offset. The UIKit bindings' delegate method
    /// forwards here; call it yourself from a surface of your own that knows where a fling rests.
    public func willEndDragging(velocityPerMillisecond velocity: Double, target: Double) {
        do {
            let perSecond = try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: velocity)
            liftReported = true
            lift(velocity: perSecond, target: target)
        } catch {
            report(error)
        }
    }

    private func lift(velocity: Double, target: Double?) {
        guard let frame = frame(motion: .dragging) else { return }
        if let problem = adapter.fingerLifted(at: frame, velocity: velocity, targetOffset: target, rate: frame.decelerationRate) {
            return onProblem(problem)
        }
        // UIKit may still say "dragging" now; the lift decides whether the next frames coast.
        let coasts = (try? ScrollTranslation.decelerationPhase(offset: frame.offset, velocity: velocity, targetOffset: target,
                                                               rate: frame.decelerationRate, range: frame.range)) != .idle
        tick(motion: coasts ? .decelerating : .idle, force: true)
    }

    // MARK: What the app calls

    /// The priority for the cell at `indexPath` to ask with: call it from `cellForItemAt`
    /// (`cellForRowAt`) and pass it to `fetchAsync(_:priority:completion:)`. A stale index path
    /// is reported and answered with ``/PrefetchKit/FetchPriority/visible``. During an animated
    /// scroll, a cell on screen asks at visible priority, except while the content moves a
    /// screen or more per sixtieth of a second: such a cell is gone within a frame or two, so it asks at
    /// ``/PrefetchKit/FetchPriority/Level/speculative``, and its load waits behind the
    /// destination's instead of pre-empting one.
    public func priority(at indexPath: IndexPath) -> FetchPriority {
        endQuietAnimation()
        flushPendingLayout()
        let extent = surface?.cellExtent(at: indexPath, along: axis)
        // During an animation the plan is its first frame's: a cell on screen now is what the user
        // sees, whatever that plan forecast, unless the content moves a screen or more per 60 Hz
        // frame. Such a cell is gone within a frame or two: it asks at speculative priority, so its load waits
        // behind the destination's loads instead of pre-empting one, and is cancelled unstarted.
        if adapter.holdsPlanForAnimation, let extent, let reading = surface?.reading(along: axis),
           reading.offset.isFinite, reading.viewportLength.isFinite, reading.viewportLength > 0,
           extent.overlaps(reading.offset..<(reading.offset + reading.viewportLength)) {
            return adapter.animationFliesPast(viewportLength: reading.viewportLength) ? FetchPriority(level: .speculative) : .visible
        }
        let answer = adapter.priority(at: indexPath, lookup: lookup, extent: extent)
        if let problem = answer.problem { onProblem(problem) }
        return answer.priority
    }

    /// Tells the prefetcher where a programmatic scroll goes, before you start it: call it before
    /// `setContentOffset(_:animated:)` or `scrollRectToVisible(_:animated:)`. Animated, the
    /// controller plans the destination at once and skips what the animation only flies past;
    /// without animation, the next move is a jump.
    ///
    /// - Parameters:
    ///   - offset: The destination's content offset along the axis (clamped to the content).
    ///   - animated: Whether the scroll animates (`true`) or jumps.
    public func willScroll(to offset: Double, animated: Bool) {
        guard let frame = frame(), offset.isFinite else { return }
        let range = frame.range
        let target = min(max(offset, range.lowerBound), range.upperBound)
        if animated {
            adapter.willAnimate(to: target, at: frame.time)
            tick(motion: .animating, force: true)
        } else {
            adapter.animationEnded()
        }
    }

    /// Tells the prefetcher that a programmatic scroll goes to the item at `indexPath` (its leading
    /// edge at the viewport's, as `scrollToItem(at:at: .top, animated:)` puts it): call it before
    /// `scrollToItem` or `scrollToRow`. An index path with no cell is reported and ignored.
    public func willScroll(to indexPath: IndexPath, animated: Bool) {
        guard let extent = surface?.cellExtent(at: indexPath, along: axis), let reading = surface?.reading(along: axis) else {
            return onProblem(PrefetchError(.invalidArgument, "ScrollViewPrefetcher.willScroll(to:): index path \(indexPath) has no cell, or the scroll view is gone"))
        }
        willScroll(to: extent.lowerBound - reading.leadingInset, animated: animated)
    }

    /// An animated scroll ended: forward `scrollViewDidEndScrollingAnimation(_:)` (and
    /// `scrollViewDidScrollToTop(_:)`, the status-bar tap) here. The controller plans the view at
    /// rest where it is.
    public func didEndScrollingAnimation() {
        adapter.animationEnded()
        tick(motion: .idle, force: true)
    }

    /// Scrolls one page (VoiceOver's three-finger swipe, Page Up / Page Down) with animation,
    /// telling the controller the destination first; when the scroll arrives it posts
    /// `UIAccessibility.Notification.pageScrolled` with ``pageStatus``. Call it from your
    /// `accessibilityScroll(_:)` override (return its result) or a `UIKeyCommand`.
    ///
    /// - Returns: `false` when there is nothing to scroll: not on screen, or at the start or the end,
    ///   where VoiceOver hears the same position again (its sign that scrolling cannot go on).
    @discardableResult
    public func scrollPage(_ direction: PageScrollDirection) -> Bool {
        guard let surface, let frame = frame() else {
            onProblem(PrefetchError(.invalidArgument, "ScrollViewPrefetcher.scrollPage: the scroll view is gone or not on screen"))
            return false
        }
        let target = adapter.pageScroll(direction, from: frame, overlap: pageOverlap)
        guard target != frame.offset else {
            // At a border: VoiceOver hears the same position again, which tells the user that
            // scrolling cannot go on (UIAccessibility.Notification.pageScrolled).
            announcePosition(of: frame)
            return false
        }
        pendingPage = (target, frame.time + ScrollTranslation.animatedScrollDuration * 2)
        surface.animateScroll(to: target, along: axis)
        return true
    }

    /// The data changed under stable item ids (a diffable snapshot was applied, a batch update
    /// of a plain data source ran): the next frame reads the whole plan again.
    public func dataChanged() {
        adapter.dataChanged()
        tick(force: true)
    }

    /// A section that scrolls across the list's axis on its own (an orthogonal section of a
    /// compositional layout: a carousel) scrolled: the cards it shows now count as visible, those it
    /// left are withdrawn. The prefetcher cannot hear that scrolling itself; call this from the
    /// section's `visibleItemsInvalidationHandler` if you want the plan to follow it. Without it,
    /// the carousel's cards are planned as it showed them at the list's last frame, and a card that
    /// scrolls in asks at visible priority from `cellForItemAt` all the same.
    public func orthogonalSectionScrolled() { dataChanged() }

    /// The data was reloaded and index paths may name other data (`reloadData()`).
    public func dataReloaded() {
        adapter.dataReloaded()
        tick(force: true)
    }

    /// Plans again from the scroll view as it is now, though nothing moved: what the controller
    /// holds back under a memory budget (``/PrefetchKit/PrefetchTarget/prefetchCapacity``) or sends
    /// to a data store moves on only when it plans, and a resting scroll view reports no change.
    /// Call it once a display frame while the view rests with a budget or a store (from a
    /// `CADisplayLink`, or your frame loop); without either it changes nothing an app sees.
    public func refresh() {
        endQuietAnimation()
        flushPendingLayout()
        tick(force: true)
    }

    /// An animation nobody announced that has had no frame for a while has stopped: plan the
    /// view at rest where it is (UIKit sends no callback after an animation's last frame).
    private func endQuietAnimation() {
        guard adapter.unannouncedAnimationEnded(at: now()) else { return }
        adapter.animationEnded()
        tick(motion: .idle, force: true)
    }

    /// An animated scroll had no frame for the quiet time (`ScrollTracker.animationQuietTime`, 0.1 s) and
    /// nobody said it ended: it has, and the controller plans the view at rest where it is.
    private func animationWentQuiet() {
        adapter.animationEnded()
        tick(motion: .idle, force: true)
    }

    /// Stops watching the scroll view and withdraws every request.
    public func detach() {
        unbind()
        unbind = {}
        surface = nil
        retainedSurface = nil
        adapter.detach()
    }
}
