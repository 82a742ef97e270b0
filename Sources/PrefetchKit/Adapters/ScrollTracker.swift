/// Turns a scroll view's frames and gesture events into the ``ScrollState`` a
/// ``PrefetchController`` reads: the velocity between frames, and the phase with where the motion
/// will end.
///
/// An adapter calls ``frame(_:)`` whenever the offset or the size changes (UIKit's
/// `scrollViewDidScroll`, SwiftUI's `onScrollGeometryChange`), ``fingerLifted(at:offset:velocity:targetOffset:rate:range:)``
/// when a drag ends, and ``animating(to:at:duration:)`` when it starts an animated scroll itself.
///
/// ```swift
/// var tracker = ScrollTracker()
/// let state = try tracker.frame(.init(time: 0.5, offset: 1_200, viewportLength: 800,
///                                     contentLength: 40_000, motion: .tracking))
/// ```
public struct ScrollTracker: Sendable {
    /// What moves the content, as the toolkit reports it.
    public enum Motion: Sendable, Hashable {
        /// Nothing: the scroll view rests (or jumped without animation).
        case idle
        /// A finger drags the content (UIKit's `isDragging`; SwiftUI's `.tracking` and `.interacting`).
        case tracking
        /// Coasting after the finger lifted (UIKit's `isDecelerating`; SwiftUI's `.decelerating`).
        case decelerating
        /// An animated scroll (SwiftUI's `.animating`; in UIKit, the animations the adapter starts).
        case animating

        /// UIKit's flags as a motion: dragging wins over decelerating.
        public init(isDragging: Bool, isDecelerating: Bool) {
            self = isDragging ? .tracking : (isDecelerating ? .decelerating : .idle)
        }
    }

    /// One frame of a scroll view: the leading edge of its viewport and its lengths along the
    /// scroll axis, in points, with the time in seconds.
    public struct Frame: Sendable, Hashable {
        /// The time of the frame, in seconds on any clock that does not go back.
        public var time: Double
        /// The content offset along the scroll axis (UIKit's `contentOffset.y` for a vertical list).
        public var offset: Double
        /// The viewport's length along the axis (the bounds' height for a vertical list).
        public var viewportLength: Double
        /// The content's length along the axis (`contentSize.height`).
        public var contentLength: Double
        /// The inset before the content (UIKit's `adjustedContentInset.top`).
        public var leadingInset: Double
        /// The inset after the content.
        public var trailingInset: Double
        /// What moves the content.
        public var motion: Motion

        /// Creates a frame.
        public init(time: Double, offset: Double, viewportLength: Double, contentLength: Double,
                    leadingInset: Double = 0, trailingInset: Double = 0, motion: Motion) {
            self.time = time
            self.offset = offset
            self.viewportLength = viewportLength
            self.contentLength = contentLength
            self.leadingInset = leadingInset
            self.trailingInset = trailingInset
            self.motion = motion
        }

        /// The offsets the viewport can take.
        public var range: ClosedRange<Double> {
            ScrollTranslation.scrollableRange(contentLength: contentLength, viewportLength: viewportLength,
                                              leadingInset: leadingInset, trailingInset: trailingInset)
        }
    }

    private var last: (time: Double, offset: Double)?
    private var velocity = 0.0
    /// Where the current fling rests, from the finger's lift (or projected at the first coasting frame).
    private var fling: MotionPhase?
    /// The destination and end time of an animated scroll the adapter started.
    private var animation: (target: Double, end: Double)?

    /// Creates a tracker that has seen no frame.
    public init() {}

    /// The finger lifted: the next frames coast toward `targetOffset` (or, when it is missing or
    /// not finite, toward the offset projected from `velocity`; see
    /// ``ScrollTranslation/decelerationPhase(offset:velocity:targetOffset:rate:range:)``).
    ///
    /// - Parameter velocity: Points per second.
    /// - Throws: ``PrefetchError`` from the translation, naming the bad value; the tracker is unchanged then.
    public mutating func fingerLifted(at time: Double, offset: Double, velocity: Double, targetOffset: Double?,
                                      rate: Double, range: ClosedRange<Double>) throws {
        let phase = try ScrollTranslation.decelerationPhase(offset: offset, velocity: velocity, targetOffset: targetOffset,
                                                            rate: rate, range: range)
        fling = phase == .idle ? nil : phase
        self.velocity = velocity
        animation = nil
    }

    /// The adapter starts an animated scroll to `target` (a page scroll, `scrollToItem`): the next
    /// frames are ``MotionPhase/programmatic(targetOffset:duration:)`` until `time + duration`.
    public mutating func animating(to target: Double, at time: Double,
                                   duration: Double = ScrollTranslation.animatedScrollDuration) {
        animation = (target, time + max(0, duration))
        fling = nil
    }

    /// The state of one frame.
    ///
    /// The velocity is the change of offset since the previous frame over the time between them
    /// (kept from the previous frame when no time passed). The phase follows `frame.motion`:
    /// tracking drags; decelerating coasts to the fling's resting offset (projected from the
    /// velocity at the normal rate when no lift was reported, as in SwiftUI); animating, or idle
    /// while an animation the adapter started runs, goes to its destination; idle rests.
    ///
    /// - Throws: ``PrefetchError`` (``PrefetchError/Code/invalidArgument``) naming the value when
    ///   a value is not finite, the viewport is not longer than 0, the content is shorter than 0,
    ///   or the time is earlier than the previous frame's; the tracker is unchanged then.
    public mutating func frame(_ frame: Frame) throws -> ScrollState {
        try check(frame)
        if let last, frame.time > last.time {
            velocity = (frame.offset - last.offset) / (frame.time - last.time)
        }
        last = (frame.time, frame.offset)
        let phase: MotionPhase
        switch frame.motion {
        case .tracking:
            fling = nil
            animation = nil
            phase = .dragging
        case .decelerating:
            animation = nil
            if fling == nil {
                fling = try? ScrollTranslation.decelerationPhase(
                    offset: frame.offset, velocity: velocity, targetOffset: nil,
                    rate: ScrollTranslation.normalDecelerationRate, range: frame.range)
            }
            phase = fling ?? .idle
        case .idle, .animating:
            fling = nil
            if let animation, frame.time < animation.end, animation.target != frame.offset {
                phase = .programmatic(targetOffset: animation.target, duration: animation.end - frame.time)
            } else if frame.motion == .animating {
                // An animation whose destination nobody told us (SwiftUI's `scrollTo`): go on as it moves.
                animation = nil
                phase = .dragging
            } else {
                animation = nil
                velocity = 0
                phase = .idle
            }
        }
        if phase == .idle { velocity = 0 }
        return ScrollState(time: frame.time, viewport: frame.offset..<(frame.offset + frame.viewportLength),
                           contentLength: max(0, frame.contentLength), velocity: velocity, phase: phase)
    }

    private func check(_ frame: Frame) throws {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw PrefetchError(.invalidArgument, message()) }
        }
        try require(frame.time.isFinite, "scroll frame time \(frame.time) must be finite")
        try require(frame.offset.isFinite, "scroll frame offset \(frame.offset) must be finite")
        try require(frame.viewportLength.isFinite && frame.viewportLength > 0,
                    "scroll frame viewport length \(frame.viewportLength) must be finite and greater than 0 (is the scroll view detached or not laid out yet?)")
        try require(frame.contentLength.isFinite && frame.contentLength >= 0,
                    "scroll frame content length \(frame.contentLength) must be finite and at least 0")
        try require(frame.leadingInset.isFinite && frame.trailingInset.isFinite,
                    "scroll frame insets \(frame.leadingInset), \(frame.trailingInset) must be finite")
        if let last {
            try require(frame.time >= last.time, "scroll frame time \(frame.time) is earlier than the previous frame's \(last.time)")
        }
    }
}
