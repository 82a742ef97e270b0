import Foundation

/// Turns a scroll view's frames and gesture events into the ``ScrollState`` a
/// ``PrefetchController`` reads: the velocity between frames, and the phase with where the motion
/// will end. A ``ScrollAdapter`` keeps one; what you build is its input, a ``Frame``.
///
/// ```swift
/// let frame = ScrollTracker.Frame(time: 0.5, offset: 1_200, viewportLength: 800,
///                                 contentLength: 40_000, motion: .dragging)
/// ```
package struct ScrollTracker: Sendable {
    /// What moves the content, as the toolkit reports it.
    package typealias Motion = ScrollMotion

    /// One frame of a scroll view: the leading edge of its viewport and its lengths along the
    /// scroll axis, in points, with the time in seconds.
    package struct Frame: Sendable, Hashable {
        package var time, offset, viewportLength, contentLength, leadingInset, trailingInset: Double
        package var motion: Motion
        package var decelerationRate: Double

        /// Creates a frame.
        ///
        /// - Parameters:
        ///   - time: Seconds, on any clock that does not go back.
        ///   - offset: The content offset along the scroll axis (UIKit's `contentOffset.y` for a
        ///     vertical list).
        ///   - viewportLength: The viewport's length along the axis (the bounds' height).
        ///   - contentLength: The content's length along the axis (`contentSize.height`).
        ///   - leadingInset: The inset before the content (UIKit's `adjustedContentInset.top`).
        ///   - trailingInset: The inset after the content.
        ///   - motion: What moves the content.
        ///   - decelerationRate: The fraction of its velocity a coasting scroll view keeps per
        ///     millisecond (UIKit's `decelerationRate.rawValue`): a fling whose end nobody reported
        ///     is projected with it.
        package init(time: Double, offset: Double, viewportLength: Double, contentLength: Double,
                    leadingInset: Double = 0, trailingInset: Double = 0, motion: Motion,
                    decelerationRate: Double = ScrollTranslation.normalDecelerationRate) {
            self.time = time
            self.offset = offset
            self.viewportLength = viewportLength
            self.contentLength = contentLength
            self.leadingInset = leadingInset
            self.trailingInset = trailingInset
            self.motion = motion
            self.decelerationRate = decelerationRate
        }

        /// The offsets the viewport can take.
        package var range: ClosedRange<Double> {
            ScrollTranslation.scrollableRange(contentLength: contentLength, viewportLength: viewportLength,
                                              leadingInset: leadingInset, trailingInset: trailingInset)
        }
    }

    /// How long a repeated offset may follow the last movement and still be an echo of it (a
    /// second observer, a size or phase change reported on its own) rather than a pause, in seconds.
    package static let echoInterval = 0.05
    /// The shortest interval a velocity is measured over, in seconds: two offsets reported closer
    /// than this (one scroll step seen by two observers) are measured from the earlier anchor.
    package static let minimumInterval = 0.004
    /// How far back a drag's velocity looks, in seconds: the slope of a least-squares line through
    /// the drag's frames of the last `dragWindow` (and the one frame just before it). Two
    /// frames alone give the speed of one display interval, which the callback's own delay (a few
    /// milliseconds of main-thread work) and offsets rounded to the pixel grid skew by up to a
    /// fifth at 60 Hz and by half at 120 Hz; two display intervals of 60 Hz smooth that and lag a
    /// steady drag by nothing.
    package static let dragWindow = 1.0 / 30

    private var last: (time: Double, offset: Double)?
    /// The frame the velocity is measured from: the last one that moved, at least
    /// `minimumInterval` before the next.
    private var anchor: (time: Double, offset: Double)?
    /// The current drag's moving frames within ``dragWindow`` of the last (and the one before them).
    private var dragSamples: [(time: Double, offset: Double)] = []
    /// The velocity of the last frame, in points per second.
    package private(set) var velocity = 0.0
    /// The time of the last frame, in seconds; nil before the first.
    package var lastFrameTime: Double? { last?.time }
    /// The interval the velocity was measured over, when the content coasted through it.
    private var coastedOver: Double?
    /// Where the current fling rests, from the finger's lift (or projected at the first coasting frame).
    private var fling: MotionPhase?
    /// The offset the current fling started from: which way it travels.
    private var flingOrigin: Double?
    /// The destination and end time of an animated scroll the adapter started, and whether a
    /// frame of it was planned.
    private var animation: (target: Double, end: Double, planned: Bool)?
    /// The time of the last frame of an animation nobody announced (SwiftUI's `.animating`, a
    /// UIKit move with neither flag), while it runs: its first frame is planned as a jump, the
    /// next ones hold the plan (``holdsPlan``) until it stops.
    private var unannounced: Double?
    /// Whether the last frame belongs to an animation whose destination nobody told: the adapter
    /// then keeps the plan it has rather than plan every screen the animation flies past.
    package private(set) var holdsPlan = false
    /// Whether the last frame is the first of a move nobody announced (a jump, or an animation's
    /// first frame): the adapter adds its screen to the plan it has and plans the rest when the
    /// view rests (see `PrefetchController.updateKeepingPlan(_:geometry:)`).
    package private(set) var startsUnannouncedMove = false
    /// How fast the last frame moved the (clamped) offset from the frame before it, in points per
    /// second (over at least a millisecond); 0 for the first frame.
    package private(set) var lastStepSpeed = 0.0

    /// How long an animation nobody announced may go without a frame before it counts as ended, in
    /// seconds: a display frame is 8-17 ms, so a gap of 0.1 s is a stop, not a slow frame.
    package static let animationQuietTime = 0.1

    /// Creates a tracker that has seen no frame.
    package init() {}

    /// The finger lifted: the next frames coast toward `targetOffset` (or, when it is missing or
    /// not finite, toward the offset projected from `velocity`; see
    /// `ScrollTranslation.decelerationPhase(offset:velocity:targetOffset:rate:range:)`).
    ///
    /// - Parameter velocity: Points per second.
    /// - Throws: ``PrefetchError`` from the translation, naming the bad value; the tracker is unchanged then.
    package mutating func fingerLifted(at time: Double, offset: Double, velocity: Double, targetOffset: Double?,
                                      rate: Double, range: ClosedRange<Double>) throws {
        let phase = try ScrollTranslation.decelerationPhase(offset: offset, velocity: velocity, targetOffset: targetOffset,
                                                            rate: rate, range: range)
        fling = phase == .idle ? nil : phase
        flingOrigin = offset
        self.velocity = velocity
        coastedOver = nil
        animation = nil
        dragSamples = []
        // The lift gives the velocity: the next frames measure from here, not from where the drag
        // (or a flick from rest) began.
        anchor = (time, offset)
    }

    /// The adapter starts an animated scroll to `target` (a page scroll, `scrollToItem`): the next
    /// frames are ``MotionPhase/programmatic(targetOffset:duration:)`` until `time + duration`.
    package mutating func animating(to target: Double, at time: Double,
                                   duration: Double = ScrollTranslation.animatedScrollDuration) {
        animation = (target, time + max(0, duration), false)
        fling = nil
        unannounced = nil
    }

    /// The content moved under the viewport by `delta` points with no motion of the user's (items
    /// inserted above, and the offset moved by their length to keep the user's place): every
    /// offset the tracker keeps moves with it, so the next frame measures the finger, not the jump.
    package mutating func shift(by delta: Double) {
        guard delta.isFinite, delta != 0 else { return }
        if let last { self.last = (last.time, last.offset + delta) }
        if let anchor { self.anchor = (anchor.time, anchor.offset + delta) }
        dragSamples = dragSamples.map { ($0.time, $0.offset + delta) }
        if case let .decelerating(resting, rate)? = fling { fling = .decelerating(restingOffset: resting + delta, rate: rate) }
        if let flingOrigin { self.flingOrigin = flingOrigin + delta }
        if let animation { self.animation = (animation.target + delta, animation.end, animation.planned) }
    }

    /// The toolkit said the animation ended (UIKit's `scrollViewDidEndScrollingAnimation`): the
    /// next frame rests, wherever the animation was going.
    package mutating func animationEnded() {
        animation = nil
        unannounced = nil
    }

    /// Whether an animation nobody announced has gone `animationQuietTime` without a frame at
    /// `time`: it has ended, and a frame at rest should say so.
    package func unannouncedAnimationEnded(at time: Double) -> Bool {
        guard let unannounced else { return false }
        return time - unannounced > Self.animationQuietTime
    }

    /// The state of one frame.
    ///
    /// The velocity is the change of offset since the last frame that moved, over the time between
    /// them; while dragging, from the third frame on, the slope through the drag's frames of the
    /// last ``dragWindow``. A frame that repeats the offset within `echoInterval` of the last movement keeps
    /// the velocity: UIKit reports one scroll step to an offset and a bounds observer, and a size
    /// change, a phase change or a data change re-reads an unchanged offset; none of them means
    /// the content stopped. A repeat after a longer pause is a standstill (velocity 0). Offsets
    /// closer together than `minimumInterval` are measured over the longer span. The phase follows `frame.motion`:
    /// tracking drags; decelerating coasts to the fling's resting offset (projected from the
    /// velocity at the normal rate when no lift was reported, as in SwiftUI); animating, or idle
    /// while an animation the adapter started runs, goes to its destination; idle rests.
    ///
    /// - Throws: ``PrefetchError`` (``PrefetchError/Code/invalidArgument``) naming the value when
    ///   a value is not finite, the viewport is not longer than 0, the content is shorter than 0,
    ///   or the time is earlier than the previous frame's; the tracker is unchanged then.
    package mutating func frame(_ reported: Frame) throws -> ScrollState {
        try check(reported)
        // Past either end (rubber-banding, a bounce) the content shows what it shows at the end:
        // the plan, the velocity and the heading are the clamped offset's.
        var frame = reported
        let range = reported.range
        frame.offset = min(max(reported.offset, range.lowerBound), range.upperBound)
        measureVelocity(frame)
        lastStepSpeed = last.map { abs(frame.offset - $0.offset) / max(frame.time - $0.time, 0.001) } ?? 0
        last = (frame.time, frame.offset)
        holdsPlan = false
        startsUnannouncedMove = false
        let phase: MotionPhase
        switch frame.motion {
        case .dragging:
            fling = nil
            animation = nil
            unannounced = nil
            phase = .dragging
        case .decelerating:
            animation = nil
            unannounced = nil
            if fling == nil {
                let projected = try? ScrollTranslation.decelerationPhase(
                    offset: frame.offset, velocity: speedAtFrame(rate: frame.decelerationRate), targetOffset: nil,
                    rate: frame.decelerationRate, range: range)
                // A coast that began before any movement was measured (SwiftUI reports `.decelerating`
                // with the last geometry of a flick from rest, before its first coasting frame)
                // projects nowhere: the next frame, which has a speed, projects again.
                if projected != .idle { fling = projected; flingOrigin = frame.offset }
            }
            // The content may have shrunk since the lift (a rotation, an update): the fling rests in
            // the range the content has now.
            if case let .decelerating(resting, rate)? = fling {
                let clamped = min(max(resting, range.lowerBound), range.upperBound)
                if clamped != resting { fling = .decelerating(restingOffset: clamped, rate: rate) }
            }
            // A view that coasted past where the fling was to rest (UIKit rounds its last steps to
            // pixels; a projection is a limit the frames approach from either side) rests where it
            // is: a resting point behind it would turn the plan around for the fling's last frames.
            if case let .decelerating(resting, rate)? = fling, let origin = flingOrigin,
               (resting - origin) * (frame.offset - resting) > 0 {
                fling = .decelerating(restingOffset: frame.offset, rate: rate)
            }
            phase = fling ?? .idle
        case .idle, .animating:
            fling = nil
            if let animation, frame.time < animation.end, animation.target != frame.offset {
                unannounced = nil
                // Planned at its start, for its destination: the frames it flies past hold that plan.
                holdsPlan = animation.planned
                self.animation?.planned = true
                phase = .programmatic(targetOffset: animation.target, duration: .saturating(seconds: animation.end - frame.time))
            } else if frame.motion == .animating {
                // An animation whose destination nobody told us (SwiftUI's `scrollTo`, a UIKit move
                // with neither flag): its first frame is a jump to where it is; the next ones, a
                // display frame apart, fly past screens the user never stops on, so they hold the plan.
                animation = nil
                if let since = unannounced, frame.time - since <= Self.animationQuietTime {
                    holdsPlan = true
                } else {
                    startsUnannouncedMove = true
                }
                unannounced = frame.time
                phase = .idle
            } else {
                animation = nil
                unannounced = nil
                phase = .idle
            }
        }
        if phase == .idle {
            velocity = 0
            anchor = (frame.time, frame.offset)
            dragSamples = []
        }
        return ScrollState(seconds: frame.time, viewport: frame.offset..<(frame.offset + frame.viewportLength),
                           contentLength: max(0, frame.contentLength), velocity: velocity, phase: phase)
    }

    private mutating func measureVelocity(_ frame: Frame) {
        guard let last else {
            anchor = (frame.time, frame.offset)
            return
        }
        if frame.offset == last.offset {
            // An echo of the last step keeps the velocity; a repeat after a pause is a standstill.
            if frame.time - (anchor?.time ?? last.time) > Self.echoInterval {
                velocity = 0
                anchor = (frame.time, frame.offset)
                dragSamples = []
            }
            return
        }
        let from = anchor ?? last
        let interval = frame.time - from.time
        guard interval >= Self.minimumInterval else { return }
        let measured = (frame.offset - from.offset) / interval
        if measured.isFinite {
            velocity = measured
            coastedOver = frame.motion == .decelerating ? interval : nil
            if frame.motion == .dragging {
                if dragSamples.isEmpty { dragSamples = [from] }
                dragSamples.append((frame.time, frame.offset))
                if let slope = dragSlope(at: frame.time) { velocity = slope }
            } else {
                dragSamples = []
            }
        }
        anchor = (frame.time, frame.offset)
    }

    /// The slope of the least-squares line through the drag's frames in its window, once there
    /// are three: frames older than twice the window are dropped (a pause before them says
    /// nothing about the finger now), and of those older than the window only the newest stays.
    private mutating func dragSlope(at time: Double) -> Double? {
        dragSamples.removeAll { $0.time < time - 2 * Self.dragWindow }
        if let inside = dragSamples.firstIndex(where: { $0.time > time - Self.dragWindow }), inside > 1 {
            dragSamples.removeFirst(inside - 1)
        }
        guard dragSamples.count >= 3 else { return nil }
        let n = Double(dragSamples.count)
        let meanTime = dragSamples.reduce(0) { $0 + $1.time } / n
        let meanOffset = dragSamples.reduce(0) { $0 + $1.offset } / n
        var covariance = 0.0, variance = 0.0
        for sample in dragSamples {
            covariance += (sample.time - meanTime) * (sample.offset - meanOffset)
            variance += (sample.time - meanTime) * (sample.time - meanTime)
        }
        let slope = covariance / variance
        return variance > 0 && slope.isFinite ? slope : nil
    }

    /// The velocity at the last frame. A velocity measured over an interval the content coasted
    /// through is the curve's mean over it, faster than the curve at its end: the end speed is the
    /// mean times `Deceleration.finalSpeedFactor(overSeconds:rate:)`.
    private func speedAtFrame(rate: Double) -> Double {
        guard let interval = coastedOver else { return velocity }
        let factor = Deceleration.finalSpeedFactor(overSeconds: interval, rate: rate)
        return factor.isFinite ? velocity * factor : velocity
    }

    private func check(_ frame: Frame) throws {
        try frame.validate()
        if let last, frame.time < last.time {
            throw PrefetchError(.invalidArgument, "scroll frame time \(frame.time) is earlier than the previous frame's \(last.time)")
        }
    }
}

extension ScrollTracker.Frame {
    /// Checks that every value is usable, naming the first that is not: finite values, a viewport
    /// longer than 0, content at least 0 long, a deceleration rate strictly between 0 and 1.
    func validate() throws {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw PrefetchError(.invalidArgument, message()) }
        }
        try require(time.isFinite, "scroll frame time \(time) must be finite")
        try require(offset.isFinite, "scroll frame offset \(offset) must be finite")
        try require(viewportLength.isFinite && viewportLength > 0,
                    "scroll frame viewport length \(viewportLength) must be finite and greater than 0 (is the scroll view detached or not laid out yet?)")
        try require(contentLength.isFinite && contentLength >= 0,
                    "scroll frame content length \(contentLength) must be finite and at least 0")
        try require(leadingInset.isFinite && trailingInset.isFinite,
                    "scroll frame insets \(leadingInset), \(trailingInset) must be finite")
        try require(Deceleration.isValid(rate: decelerationRate),
                    "scroll frame deceleration rate \(decelerationRate) must lie strictly between 0 and 1 (UIKit's normal rate is \(ScrollTranslation.normalDecelerationRate))")
    }
}

/// What moves a scroll view's content, as its toolkit reports it: what PrefetchSwiftUI's `ListPrefetcher`
/// hears as SwiftUI's scroll phase.
public enum ScrollMotion: Sendable, Hashable {
    /// Nothing: the scroll view rests (or jumped without animation); SwiftUI's `.idle`, and its
    /// `.tracking` (a finger is down but nothing moves).
    case idle
    /// A finger drags the content (UIKit's `isDragging`; SwiftUI's `.interacting`): the same name
    /// as the planner's ``MotionPhase/dragging``.
    case dragging
    /// Coasting after the finger lifted (UIKit's `isDecelerating`; SwiftUI's `.decelerating`).
    case decelerating
    /// An animated scroll (SwiftUI's `.animating`; in UIKit, the animations the adapter starts).
    case animating

    /// UIKit's flags as a motion: dragging wins over decelerating.
    package init(isDragging: Bool, isDecelerating: Bool) {
        self = isDragging ? .dragging : (isDecelerating ? .decelerating : .idle)
    }
}
