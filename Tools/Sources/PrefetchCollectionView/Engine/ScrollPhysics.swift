import Foundation
import PrefetchKit
import PrefetchToolSupport

/// How quickly a flung view slows down, like `UIScrollView.DecelerationRate`.
///
/// The velocity after `t` milliseconds of coasting is `v0 · rate^t`; the curve is PrefetchKit's
/// `Deceleration`.
public struct DecelerationRate: Hashable, Sendable {
    /// The fraction of velocity kept per millisecond.
    public let rawValue: Double

    /// UIKit's normal rate: 0.998 per millisecond (`Deceleration.normalRate`).
    public static let normal = DecelerationRate(validated: Deceleration.normalRate)
    /// UIKit's fast rate: 0.99 per millisecond (`Deceleration.fastRate`).
    public static let fast = DecelerationRate(validated: Deceleration.fastRate)

    /// Creates a rate.
    ///
    /// - Throws: `PrefetchError` (`invalidConfiguration`) unless `0 < rawValue < 1`.
    public init(rawValue: Double) throws {
        guard Deceleration.isValid(rate: rawValue) else {
            throw PrefetchError(.invalidConfiguration, "DecelerationRate \(rawValue) must lie strictly between 0 and 1")
        }
        self.rawValue = rawValue
    }

    private init(validated: Double) { rawValue = validated }
}

/// Where ``ItemScrollView/scrollToItem(at:at:animated:)`` puts the item in the viewport.
public enum ScrollPosition: Hashable, Sendable {
    /// The item's top at the viewport's top.
    case top
    /// The item's centre at the viewport's centre.
    case centeredVertically
    /// The item's bottom at the viewport's bottom.
    case bottom
    /// The least scrolling that shows the whole item; none when it is visible already.
    case nearest
}

/// What moves the content offset from frame to frame.
enum Motion {
    case idle
    case dragging
    case decelerating(startTime: Double, startOffset: Double, velocity: Double, rate: DecelerationRate)
    case animating(startTime: Double, from: Double, to: Double, duration: Double, curve: ScrollAnimationCurve)
    /// Springing back to `to`, the end of the content a drag pulled it past (``ItemScrollView/bounces``);
    /// the view reports it as decelerating, as UIKit does.
    case bouncing(startTime: Double, from: Double, to: Double)
}

/// How an animated scroll's offset moves from its start to its destination.
package enum ScrollAnimationCurve: Hashable, Sendable {
    /// A cubic ease-out, `1 - (1 - p)³`: ``ItemScrollView/setContentOffset(_:animated:)``'s curve.
    case easeOut
    /// UIKit's ease-in-out timing curve, the cubic Bézier through (0.42, 0) and (0.58, 1): slow at
    /// both ends, as `setContentOffset(_:animated: true)` and `scrollToItem` move on iOS.
    case easeInOut

    /// The share of the distance covered at `progress` (0...1 of the duration).
    package func fraction(at progress: Double) -> Double {
        let p = min(1, max(0, progress))
        switch self {
        case .easeOut:
            return 1 - (1 - p) * (1 - p) * (1 - p)
        case .easeInOut:
            guard p > 0, p < 1 else { return p }
            // Solve x(s) = p for the Bézier's parameter s by bisection (x is increasing), then y(s).
            func bezier(_ s: Double, _ a: Double, _ b: Double) -> Double { 3 * (1 - s) * (1 - s) * s * a + 3 * (1 - s) * s * s * b + s * s * s }
            var (low, high) = (0.0, 1.0)
            for _ in 0..<40 {
                let mid = (low + high) / 2
                if bezier(mid, 0.42, 0.58) < p { low = mid } else { high = mid }
            }
            return bezier((low + high) / 2, 0, 1)
        }
    }

    /// The curve's slope at `progress`: the share of the distance per share of the duration.
    package func slope(at progress: Double) -> Double {
        switch self {
        case .easeOut:
            let remaining = 1 - min(1, max(0, progress))
            return 3 * remaining * remaining
        case .easeInOut:
            let h = 1e-4
            let (a, b) = (max(0, progress - h), min(1, progress + h))
            return (fraction(at: b) - fraction(at: a)) / (b - a)
        }
    }
}

/// Speeds below this, in points per second, end a fling (`Deceleration.restingSpeed`).
let restingSpeed = Deceleration.restingSpeed
/// How long `setContentOffset(_:animated: true)` takes, in seconds.
let scrollAnimationDuration = 0.3
/// How long the content takes to spring back to an end after a drag pulled it past, in seconds.
let bounceDuration = 0.5
/// How stiff the rubber band is: UIKit's constant, 0.55.
let rubberBandStiffness = 0.55

extension ItemScrollView {
    /// Whether a drag is in progress (``drag(by:)`` until ``endDragging()`` or ``fling(velocity:)``).
    public var isDragging: Bool { if case .dragging = motion { true } else { false } }

    /// Whether the view is coasting after a fling, or springing back to an end after a drag past it.
    public var isDecelerating: Bool {
        switch motion {
        case .decelerating, .bouncing: true
        default: false
        }
    }

    /// Whether the content lies past either end (a rubber-banding drag, or the spring back after it).
    package var isOverscrolled: Bool { !contentOffsetRange.contains(contentOffsetStorage.y) }

    /// Whether an animated ``setContentOffset(_:animated:)`` or ``scrollToItem(at:at:animated:)`` is running.
    package var isScrollAnimating: Bool { if case .animating = motion { true } else { false } }

    /// The range the content offset's `y` may take: from `-contentInset.top` to the content's end.
    package var contentOffsetRange: ClosedRange<Double> {
        let minimum = -contentInset.top
        let maximum = max(minimum, contentSize.height + contentInset.bottom - size.height)
        return minimum...maximum
    }

    func clampedOffset(_ y: Double) -> CGPoint {
        let range = contentOffsetRange
        return CGPoint(x: -contentInset.left, y: min(max(y, range.lowerBound), range.upperBound))
    }

    /// The offset a layout pass keeps: `y` as it is while a drag rubber-bands or the content
    /// springs back (``bounces``), else clamped to the content.
    func settledOffset(_ y: Double) -> CGPoint {
        switch motion {
        case .dragging where bounces, .bouncing: CGPoint(x: -contentInset.left, y: y)
        default: clampedOffset(y)
        }
    }

    /// Where the content shows when the finger has dragged it to `raw`: `raw` within the content;
    /// past an end, that end plus UIKit's rubber band, `(1 − 1 / (x · 0.55 / h + 1)) · h` for `x`
    /// points past it in a view `h` points high, so the content follows ever less and never
    /// moves a viewport past the end.
    func rubberBanded(_ raw: Double) -> Double {
        let range = contentOffsetRange
        let height = max(size.height, 1)
        func band(_ excess: Double) -> Double { (1 - 1 / (excess * rubberBandStiffness / height + 1)) * height }
        if raw < range.lowerBound { return range.lowerBound - band(range.lowerBound - raw) }
        if raw > range.upperBound { return range.upperBound + band(raw - range.upperBound) }
        return raw
    }

    /// Where the finger is when the content shows at `shown`: ``rubberBanded(_:)`` undone.
    func unbanded(_ shown: Double) -> Double {
        let range = contentOffsetRange
        let height = max(size.height, 1)
        func unband(_ excess: Double) -> Double {
            let share = min(excess / height, 0.999)
            return height / rubberBandStiffness * (1 / (1 - share) - 1)
        }
        if shown < range.lowerBound { return range.lowerBound - unband(range.lowerBound - shown) }
        if shown > range.upperBound { return range.upperBound + unband(shown - range.upperBound) }
        return shown
    }

    /// Moves the content to `offset`, at once or animated over the next frames (0.3 s, ease-out).
    ///
    /// The offset is clamped to the content. Without animation the view stops any scrolling and
    /// runs a layout pass at once (a jump: items may appear without having been prefetched).
    /// With animation it runs a layout pass at once too, which tells its prefetch planner
    /// the destination (`MotionPhase.programmatic`), so the destination's cells load first.
    /// Non-finite values trap with a message naming the value. Before the first layout pass the
    /// offset is only stored, and used by that pass.
    public func setContentOffset(_ offset: CGPoint, animated: Bool) {
        setContentOffset(offset, animated: animated, duration: scrollAnimationDuration, curve: .easeOut)
    }

    /// Moves the content to `offset` as ``setContentOffset(_:animated:)`` does, an animation taking
    /// `duration` seconds along `curve` (the simulator's programmatic scrolls move as UIKit's:
    /// ease-in-out). A duration that is not finite or is negative traps with a message naming it.
    package func setContentOffset(_ offset: CGPoint, animated: Bool, duration: Double, curve: ScrollAnimationCurve) {
        precondition(offset.x.isFinite && offset.y.isFinite, "content offset (\(offset.x), \(offset.y)) must be finite")
        precondition(duration.isFinite && duration >= 0, "animation duration \(duration) s must be a finite number, at least 0")
        if animated {
            prepareData()
            let target = clampedOffset(offset.y).y
            motion = .animating(startTime: currentTime, from: contentOffsetStorage.y, to: target, duration: duration, curve: curve)
        } else {
            endDragging()
            motion = .idle
            contentOffsetStorage = CGPoint(x: -contentInset.left, y: offset.y)
        }
        if state.laysOutOnChange { layoutIfNeeded() }
    }

    /// Scrolls so that the item at `indexPath` is at `position` in the viewport.
    ///
    /// - Throws: `PrefetchError` (`invalidArgument`) naming the index path when it is
    ///   out of range.
    public func scrollToItem(at indexPath: IndexPath, at position: ScrollPosition, animated: Bool) throws {
        try checkedIndexPath(indexPath, in: names.scrollFunction)
        prepareData()
        guard let frame = layoutObject.frameForItem(at: indexPath) else {
            throw PrefetchError(.invalidArgument, "the layout has no frame for \(indexPath)")
        }
        let top = contentOffsetStorage.y
        let height = size.height
        let y: Double
        switch position {
        case .top: y = frame.minY - contentInset.top
        case .centeredVertically: y = frame.midY - height / 2
        case .bottom: y = frame.maxY - height + contentInset.bottom
        case .nearest:
            if frame.minY < top + contentInset.top { y = frame.minY - contentInset.top }
            else if frame.maxY > top + height - contentInset.bottom { y = frame.maxY - height + contentInset.bottom }
            else { y = top }
        }
        setContentOffset(CGPoint(x: -contentInset.left, y: y), animated: animated)
    }

    /// Moves the content by `delta` points at once, keeping the motion under way: an app keeping
    /// the user's place after items were inserted or deleted above the screen (the offset follows
    /// the content's growth in the same frame). A drag goes on under the finger, a fling coasts on
    /// and an animation still ends at its destination, all moved by `delta`. Runs a layout pass,
    /// which the scroll observer hears as an offset change. Non-finite deltas trap.
    package func shiftContentOffset(by delta: Double) {
        precondition(delta.isFinite, "shiftContentOffset(by:) delta \(delta) must be finite")
        moveContentKeepingMotion(by: delta)
        if state.laysOutOnChange { layoutIfNeeded() }
    }

    /// Moves the offset by `delta` and the motion under way with it (``shiftContentOffset(by:)``
    /// without the layout pass).
    func moveContentKeepingMotion(by delta: Double) {
        contentOffsetStorage = settledOffset(contentOffsetStorage.y + delta)
        switch motion {
        case let .decelerating(startTime, startOffset, velocity, rate):
            motion = .decelerating(startTime: startTime, startOffset: startOffset + delta, velocity: velocity, rate: rate)
        case let .animating(startTime, from, to, duration, curve):
            motion = .animating(startTime: startTime, from: from + delta, to: clampedOffset(to + delta).y, duration: duration, curve: curve)
        case let .bouncing(startTime, from, to):
            motion = .bouncing(startTime: startTime, from: from + delta, to: clampedOffset(to + delta).y)
        case .dragging:
            rawDragOffset = rawDragOffset.map { $0 + delta }
        case .idle:
            break
        }
    }

    /// Moves the content by `delta` points at the next ``step(to:)``, as a finger drag does;
    /// positive `delta` moves toward the end of the content (the content offset grows).
    ///
    /// Starts a drag if none is in progress, stopping any fling or animation. While dragging,
    /// each step sets ``velocity`` to the distance dragged since the last step over the time
    /// elapsed. Non-finite deltas trap.
    public func drag(by delta: Double) {
        precondition(delta.isFinite, "drag(by:) delta \(delta) must be finite")
        if !isDragging {
            // A finger that catches the content springing back holds it where it shows.
            rawDragOffset = bounces && isOverscrolled ? unbanded(contentOffsetStorage.y) : nil
            motion = .dragging
            pendingDrag = 0
            notifyDragBegan()
        }
        pendingDrag += delta
    }

    /// Ends a drag without a fling, or stops a fling or an animation: the content stays where it
    /// is, unless a drag left it past an end (``bounces``): then it springs back to that end.
    public func endDragging() {
        let wasDragging = isDragging
        rawDragOffset = nil
        velocity = 0
        pendingDrag = 0
        motion = wasDragging && bounces && isOverscrolled ? bounce() : .idle
        if wasDragging { notifyDragEnded(contentVelocity: 0) }
    }

    /// The spring back to the end the content lies past, from now.
    private func bounce() -> Motion {
        .bouncing(startTime: currentTime, from: contentOffsetStorage.y, to: clampedOffset(contentOffsetStorage.y).y)
    }

    /// Releases the content at `velocity` points per second (positive toward the end), after
    /// which it coasts with UIKit's deceleration (PrefetchKit's `Deceleration`): `v(t) = velocity · rate^(t in ms)`.
    ///
    /// The fling stops when the speed falls below 1 point per second or the offset reaches an
    /// end of the content (no bounce). Non-finite velocities trap.
    public func fling(velocity: Double) {
        precondition(velocity.isFinite, "fling(velocity:) velocity \(velocity) must be finite")
        if bounces, isDragging {
            // The last movement of the finger, rubber-banded past an end; a lift out there springs back.
            contentOffsetStorage.y = rubberBanded((rawDragOffset ?? contentOffsetStorage.y) + pendingDrag)
            pendingDrag = 0
            if isOverscrolled { return endDragging() }
        }
        rawDragOffset = nil
        contentOffsetStorage.y += pendingDrag
        contentOffsetStorage = clampedOffset(contentOffsetStorage.y)
        pendingDrag = 0
        guard abs(velocity) >= restingSpeed else {
            endDragging()
            return
        }
        let wasDragging = isDragging
        motion = .decelerating(startTime: currentTime, startOffset: contentOffsetStorage.y, velocity: velocity, rate: decelerationRate)
        self.velocity = velocity
        // A fling is a pan that ends moving: one from rest is a flick, a pan that began and ended at once.
        if !wasDragging { notifyDragBegan() }
        notifyDragEnded(contentVelocity: velocity)
    }

    /// Moves the content by `elapsed` seconds of the current motion.
    func advancePhysics(elapsed: Double) {
        switch motion {
        case .idle:
            velocity = 0
        case .dragging where bounces:
            let delta = pendingDrag
            pendingDrag = 0
            let before = contentOffsetStorage.y
            let raw = (rawDragOffset ?? before) + delta
            rawDragOffset = raw
            contentOffsetStorage = CGPoint(x: -contentInset.left, y: rubberBanded(raw))
            let moved = contentOffsetStorage.y - before
            if elapsed > 0 { velocity = moved / elapsed } else if moved != 0 { velocity = moved > 0 ? restingSpeed : -restingSpeed }
        case .dragging:
            let delta = pendingDrag
            pendingDrag = 0
            if elapsed > 0 { velocity = delta / elapsed } else if delta != 0 { velocity = delta > 0 ? restingSpeed : -restingSpeed }
            contentOffsetStorage = clampedOffset(contentOffsetStorage.y + delta)
        case let .decelerating(startTime, startOffset, initial, rate):
            let milliseconds = (currentTime - startTime) * 1000
            let current = Deceleration.velocity(from: initial, afterMilliseconds: milliseconds, rate: rate.rawValue)
            let target = startOffset + Deceleration.distance(from: initial, afterMilliseconds: milliseconds, rate: rate.rawValue)
            let clamped = clampedOffset(target)
            contentOffsetStorage = clamped
            if abs(current) < restingSpeed || clamped.y != target {
                motion = .idle
                velocity = 0
            } else {
                velocity = current
            }
        case let .bouncing(startTime, from, to):
            let progress = min(1, max(0, (currentTime - startTime) / bounceDuration))
            contentOffsetStorage = CGPoint(x: -contentInset.left, y: from + (to - from) * ScrollAnimationCurve.easeOut.fraction(at: progress))
            if progress >= 1 {
                motion = .idle
                velocity = 0
            } else {
                velocity = (to - from) * ScrollAnimationCurve.easeOut.slope(at: progress) / bounceDuration
            }
        case let .animating(startTime, from, to, duration, curve):
            let progress = duration > 0 ? min(1, max(0, (currentTime - startTime) / duration)) : 1
            contentOffsetStorage = clampedOffset(from + (to - from) * curve.fraction(at: progress))
            if progress >= 1 {
                motion = .idle
                velocity = 0
            } else {
                velocity = (to - from) * curve.slope(at: progress) / duration
            }
        }
    }

    /// The frame the view gives its prefetch planner now: time, viewport, content length,
    /// velocity, and the phase with a fling's resting offset or an animation's destination.
    package var scrollState: ScrollState {
        let offset = contentOffsetStorage.y
        let phase: MotionPhase
        switch motion {
        case .idle:
            phase = .idle
        case .dragging:
            phase = .dragging
        case let .decelerating(_, startOffset, initial, rate):
            let resting = startOffset + Deceleration.restingDistance(from: initial, rate: rate.rawValue)
            phase = .decelerating(restingOffset: clampedOffset(resting).y, rate: rate.rawValue)
        case let .animating(startTime, _, to, duration, _):
            phase = .programmatic(targetOffset: to, duration: .seconds(max(0, startTime + duration - currentTime)))
        case let .bouncing(_, _, to):
            phase = .decelerating(restingOffset: to, rate: decelerationRate.rawValue)
        }
        return ScrollState(
            time: .seconds(currentTime), viewport: offset..<(offset + size.height), contentLength: contentSize.height,
            velocity: velocity, phase: phase)
    }
}
