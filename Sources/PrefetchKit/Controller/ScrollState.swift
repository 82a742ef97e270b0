/// What moves a scrolling surface now, and where the motion will take it.
///
/// Every UI toolkit knows this much: UIKit's `isDragging`, `isDecelerating` and
/// `targetContentOffset`, an animated `setContentOffset`'s destination. A
/// ``PrefetchController`` turns it into a forecast of the viewport's motion.
public enum MotionPhase: Sendable, Hashable {
    /// At rest: the viewport stays where it is.
    case idle
    /// A finger moves the content; the controller assumes the current velocity goes on.
    case dragging
    /// Coasting after a fling, with UIKit's exponential deceleration.
    ///
    /// - `restingOffset`: the predicted offset of the viewport's leading edge (its
    ///   `lowerBound`) when the motion stops, clamped to the content as the surface clamps it.
    /// - `rate`: the fraction of velocity kept per millisecond (UIKit's normal rate is 0.998).
    case decelerating(restingOffset: Double, rate: Double)
    /// An animated scroll to a known destination (`scrollToItem(at:at:animated: true)`,
    /// `setContentOffset(_:animated: true)`). A jump without animation is just a new viewport
    /// with ``idle``.
    ///
    /// - `targetOffset`: the offset of the viewport's leading edge at the end of the animation.
    /// - `duration`: the time left until it gets there. The controller assumes an ease-out
    ///   curve over that time.
    case programmatic(targetOffset: Double, duration: Duration)
}

/// One frame of a scrolling surface, as a ``PrefetchController`` sees it.
///
/// All lengths are points along the scroll axis, in content coordinates; velocities are points
/// per second, positive toward the end of the content.
///
/// ```swift
/// let state = ScrollState(time: .milliseconds(1_500), viewport: 1_200..<1_867, contentLength: 66_000,
///                         velocity: 3_000, phase: .decelerating(restingOffset: 2_700, rate: 0.998))
/// ```
public struct ScrollState: Sendable, Hashable {
    /// The time of the frame on the app's clock, from any fixed origin (a controller takes a time
    /// earlier than the previous frame's as that frame's).
    public var time: Duration {
        get { .saturating(seconds: seconds) }
        set { seconds = newValue.seconds }
    }
    /// ``time`` in seconds: what the planner computes with.
    @usableFromInline package var seconds: Double
    /// The visible part of the content along the scroll axis.
    public var viewport: Range<Double>
    /// The length of the whole content along the scroll axis.
    public var contentLength: Double
    /// The scroll velocity in points per second; positive toward the end of the content.
    public var velocity: Double
    /// What moves the content and where the motion ends.
    public var phase: MotionPhase

    /// Creates the state of one frame.
    public init(time: Duration, viewport: Range<Double>, contentLength: Double, velocity: Double = 0, phase: MotionPhase = .idle) {
        self.init(seconds: time.seconds, viewport: viewport, contentLength: contentLength, velocity: velocity, phase: phase)
    }

    /// Creates the state of one frame at `seconds` on the app's clock (the adapters' clocks count in seconds).
    package init(seconds: Double, viewport: Range<Double>, contentLength: Double, velocity: Double = 0, phase: MotionPhase = .idle) {
        self.seconds = seconds
        self.viewport = viewport
        self.contentLength = contentLength
        self.velocity = velocity
        self.phase = phase
    }

    /// The viewport's length along the scroll axis.
    @usableFromInline package var viewportLength: Double { viewport.upperBound - viewport.lowerBound }

    /// Checks that every value is usable, naming the first that is not.
    ///
    /// A ``PrefetchController`` plans nothing for a state that fails this check (it withdraws
    /// what it asked for).
    ///
    /// - Throws: ``PrefetchError`` with code ``PrefetchError/Code/invalidArgument`` when the time,
    ///   the viewport, the content length, the velocity or a phase value is not finite, when the
    ///   content length is negative, when a deceleration rate is not strictly between 0 and 1, or
    ///   when an animation's duration is negative.
    @usableFromInline package func validate() throws {
        func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
            if !condition { throw PrefetchError(.invalidArgument, message()) }
        }
        try require(seconds.isFinite, "ScrollState time \(seconds) must be finite")
        try require(viewport.lowerBound.isFinite && viewport.upperBound.isFinite,
                    "ScrollState viewport \(viewport) must have finite bounds")
        try require(contentLength.isFinite && contentLength >= 0,
                    "ScrollState contentLength \(contentLength) must be a finite number, at least 0")
        try require(velocity.isFinite, "ScrollState velocity \(velocity) must be finite")
        switch phase {
        case .idle, .dragging:
            break
        case let .decelerating(restingOffset, rate):
            try require(restingOffset.isFinite, "MotionPhase.decelerating restingOffset \(restingOffset) must be finite")
            try require(Deceleration.isValid(rate: rate), "MotionPhase.decelerating rate \(rate) must lie strictly between 0 and 1")
        case let .programmatic(targetOffset, duration):
            try require(targetOffset.isFinite, "MotionPhase.programmatic targetOffset \(targetOffset) must be finite")
            try require(duration >= .zero, "MotionPhase.programmatic duration \(duration) must not be negative")
        }
    }
}
