import Foundation

/// Where the viewport's leading edge will be, from one frame's ``ScrollState``: the motion of
/// its phase, inverted to tell when the viewport reaches a given offset.
///
/// Every curve is monotone (the viewport moves one way, then stops), so an item is on screen for
/// one interval at most: from the time the viewport first meets it to the time it leaves it.
/// Times are absolute (the state's clock), so the arrival time of an item stays the same from
/// frame to frame while the forecast holds.
@usableFromInline
struct MotionForecast {
    enum Curve: Equatable {
        /// The viewport stays where it is.
        case stationary
        /// Constant velocity (points per second), until an end of the content.
        case linear(velocity: Double)
        /// UIKit's deceleration toward `rest` (`Deceleration.offset(after:from:restingAt:decay:)`),
        /// with `decay` = `Deceleration.decayConstant(rate:)` per second.
        case decay(rest: Double, decay: Double)
        /// An ease-out cubic to `target` over `duration` seconds.
        case easeOut(target: Double, duration: Double)
    }

    /// The time the forecast starts, in seconds.
    let origin: Double
    /// The viewport's leading edge at `origin`.
    let start: Double
    /// The viewport's length.
    let length: Double
    /// The content's length.
    let contentLength: Double
    let curve: Curve

    @usableFromInline
    init(_ state: ScrollState) {
        origin = state.seconds
        start = state.viewport.lowerBound
        length = state.viewportLength
        contentLength = state.contentLength
        switch state.phase {
        case .idle:
            curve = .stationary
        case .dragging:
            curve = state.velocity == 0 ? .stationary : .linear(velocity: state.velocity)
        case let .decelerating(rest, rate):
            curve = rest == state.viewport.lowerBound ? .stationary : .decay(rest: rest, decay: Deceleration.decayConstant(rate: rate))
        case let .programmatic(target, duration):
            curve = target == state.viewport.lowerBound ? .stationary : .easeOut(target: target, duration: duration.seconds)
        }
    }

    /// Whether the motion is a fling's deceleration: a path fixed from the finger's lift on.
    var isFling: Bool {
        if case .decay = curve { true } else { false }
    }

    /// Whether the motion is an animated scroll to a known destination.
    @usableFromInline var isAnimatedScroll: Bool {
        if case .easeOut = curve { true } else { false }
    }

    /// Where the motion ends: 1 toward the end of the content, -1 toward the start, 0 at rest.
    var direction: Int {
        switch curve {
        case .stationary: 0
        case .linear(let v): v > 0 ? 1 : -1
        case .decay(let rest, _): rest > start ? 1 : -1
        case .easeOut(let target, _): target > start ? 1 : -1
        }
    }

    /// The farthest offset the viewport's leading edge can take along a straight motion: the
    /// content's end, or the start (never closer than where it is now).
    private var linearBounds: ClosedRange<Double> {
        min(start, 0)...max(start, contentLength - length)
    }

    /// The offset of the leading edge at `time`.
    func offset(at time: Double) -> Double {
        let elapsed = max(0, time - origin)
        switch curve {
        case .stationary:
            return start
        case .linear(let v):
            let bounds = linearBounds
            return min(max(start + v * elapsed, bounds.lowerBound), bounds.upperBound)
        case let .decay(rest, decay):
            return Deceleration.offset(after: elapsed, from: start, restingAt: rest, decay: decay)
        case let .easeOut(target, duration):
            guard duration > 0, elapsed < duration else { return target }
            let remaining = 1 - elapsed / duration
            return start + (target - start) * (1 - remaining * remaining * remaining)
        }
    }

    /// The first time the leading edge is at `y`, or infinity when it never gets there.
    func time(reaching y: Double) -> Double {
        if y == start { return origin }
        switch curve {
        case .stationary:
            return .infinity
        case .linear(let v):
            let distance = y - start
            guard (distance > 0) == (v > 0), linearBounds.contains(y) else { return .infinity }
            return origin + distance / v
        case let .decay(rest, decay):
            let fraction = (y - start) / (rest - start)
            // The view stops once its speed drops below the resting speed, this far before `rest`.
            let stopShort = Deceleration.stoppingDistance(decay: decay) / abs(rest - start)
            guard fraction > 0, fraction < 1 - stopShort else { return .infinity }
            return origin + Deceleration.elapsed(toCover: fraction, decay: decay)
        case let .easeOut(target, duration):
            let fraction = (y - start) / (target - start)
            guard fraction > 0, fraction <= 1 else { return .infinity }
            return origin + duration * (1 - Foundation.cbrt(1 - fraction))
        }
    }

    /// Where the leading edge comes to rest: it gets this close and no closer.
    var final: Double {
        switch curve {
        case .stationary: start
        case .linear(let v): v > 0 ? linearBounds.upperBound : linearBounds.lowerBound
        case let .decay(rest, decay): rest > start ? rest - Deceleration.stoppingDistance(decay: decay) : rest + Deceleration.stoppingDistance(decay: decay)
        case .easeOut(let target, _): target
        }
    }

    /// Where a fling or an animated scroll comes to rest: the viewport there; `nil` at rest and
    /// while dragging (no known end).
    var landingZone: Range<Double>? {
        switch curve {
        case .stationary, .linear: nil
        case .decay, .easeOut: final..<(final + length)
        }
    }

    /// When an item with `extent` comes on screen and when it leaves, under this forecast;
    /// infinity for "never". An item on screen at ``origin`` arrives at ``origin``.
    ///
    /// The viewport shows the item while its leading edge lies strictly between
    /// `extent.lowerBound − length` and `extent.upperBound` (a positive overlap).
    func window(of extent: Range<Double>) -> (arrival: Double, departure: Double) {
        let onScreen = start < extent.upperBound && start + length > extent.lowerBound
        switch direction {
        case 0:
            return onScreen ? (origin, .infinity) : (.infinity, .infinity)
        case 1:
            guard start < extent.upperBound else { return (.infinity, .infinity) }
            if onScreen { return (origin, time(reaching: extent.upperBound)) }
            guard final > extent.lowerBound - length else { return (.infinity, .infinity) }
            return (time(reaching: extent.lowerBound - length), time(reaching: extent.upperBound))
        default:
            guard start + length > extent.lowerBound else { return (.infinity, .infinity) }
            if onScreen { return (origin, time(reaching: extent.lowerBound - length)) }
            guard final < extent.upperBound else { return (.infinity, .infinity) }
            return (time(reaching: extent.upperBound), time(reaching: extent.lowerBound - length))
        }
    }

    /// Whether the viewport shows `extent` at `time`.
    func shows(_ extent: Range<Double>, at time: Double) -> Bool {
        let position = offset(at: time)
        return position < extent.upperBound && position + length > extent.lowerBound
    }

    /// The gap between `extent` and the viewport at ``origin``; 0 when they meet.
    func distance(to extent: Range<Double>) -> Double {
        if extent.lowerBound >= start + length { return extent.lowerBound - (start + length) }
        if extent.upperBound <= start { return start - extent.upperBound }
        return 0
    }

    /// Whether `newer`, built from a later frame, predicts the same motion, so the arrival times
    /// computed from this forecast still hold.
    @usableFromInline
    func agrees(with newer: MotionForecast) -> Bool {
        guard abs(newer.length - length) <= 1e-6 * length, abs(newer.contentLength - contentLength) <= 1e-6 * contentLength else {
            return false
        }
        let tolerance = 2.0  // points
        switch (curve, newer.curve) {
        case (.stationary, .stationary):
            return abs(newer.start - start) <= tolerance
        case let (.linear(v), .linear(w)):
            return abs(w - v) <= 0.1 * abs(v) && abs(offset(at: newer.origin) - newer.start) <= max(tolerance, 0.05 * length)
        case let (.decay(rest, decay), .decay(newRest, newDecay)):
            return abs(newRest - rest) <= tolerance && abs(newDecay - decay) <= 1e-9 * abs(decay)
                && abs(offset(at: newer.origin) - newer.start) <= tolerance
        case let (.easeOut(target, duration), .easeOut(newTarget, newDuration)):
            return abs(newTarget - target) <= tolerance && abs((newer.origin + newDuration) - (origin + duration)) <= 0.01
                && abs(offset(at: newer.origin) - newer.start) <= tolerance
        default:
            return false
        }
    }
}
