import Foundation

/// The translations from what UIKit and SwiftUI report about a scroll view to what a
/// ``PrefetchController`` reads: units, resting offsets, page-scroll destinations.
///
/// They are plain functions so that they run, and are tested, on every platform; the Apple
/// adapters (`PrefetchUIKit`, `PrefetchSwiftUI`) only read values off the views and call them.
/// Every length is in points along the scroll axis; every velocity that leaves here is in points
/// per second, positive toward the end of the content.
package enum ScrollTranslation {
    /// UIKit's normal deceleration rate (`UIScrollView.DecelerationRate.normal`): the fraction of
    /// the velocity a coasting scroll view keeps per millisecond (`Deceleration.normalRate`).
    package static let normalDecelerationRate = Deceleration.normalRate

    /// The largest speed taken at face value, in points per second (100 points per millisecond).
    ///
    /// Real flings stay far below it (a few points per millisecond). A larger value is almost
    /// always a unit mistake: a gesture's points per second handed over as points per millisecond.
    package static let maximumPlausibleSpeed = 100_000.0

    /// The seconds an animated scroll is assumed to take when the adapter starts it itself
    /// (`setContentOffset(_:animated: true)`, a page scroll). UIKit does not document its duration;
    /// the controller only needs the destination and a rough end time.
    package static let animatedScrollDuration = 0.3

    /// Converts the velocity of `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)`,
    /// which UIKit gives in points per millisecond, to points per second.
    ///
    /// ```swift
    /// try ScrollTranslation.pointsPerSecond(fromPointsPerMillisecond: 2.5)   // 2500
    /// ```
    ///
    /// - Throws: ``PrefetchError`` (``PrefetchError/Code/invalidArgument``) when the value is not
    ///   finite or is faster than 100,000 points per second once converted (points per second
    ///   passed as points per millisecond).
    package static func pointsPerSecond(fromPointsPerMillisecond velocity: Double) throws -> Double {
        guard velocity.isFinite else {
            throw PrefetchError(.invalidArgument, "scroll velocity \(velocity) points per millisecond must be finite")
        }
        let converted = velocity * 1_000
        guard abs(converted) <= maximumPlausibleSpeed else {
            throw PrefetchError(.invalidArgument,
                                "scroll velocity \(velocity) points per millisecond is \(converted) points per second, faster than \(maximumPlausibleSpeed): was a velocity in points per second passed as points per millisecond?")
        }
        return converted
    }

    /// Checks a velocity already in points per second (a pan gesture's `velocity(in:)`, SwiftUI's
    /// `ScrollPhaseChangeContext.velocity`) and returns it.
    ///
    /// - Throws: ``PrefetchError`` (``PrefetchError/Code/invalidArgument``) when it is not finite
    ///   or faster than `maximumPlausibleSpeed`.
    package static func checkedPointsPerSecond(_ velocity: Double) throws -> Double {
        guard velocity.isFinite, abs(velocity) <= maximumPlausibleSpeed else {
            throw PrefetchError(.invalidArgument,
                                "scroll velocity \(velocity) points per second must be finite and at most \(maximumPlausibleSpeed) in size")
        }
        return velocity
    }

    /// The offsets the leading edge of the viewport can take: from minus the leading inset to the
    /// content's end plus the trailing inset, less the viewport (never below the start).
    ///
    /// A NaN or infinite inset counts as 0, and an end that is NaN (non-finite lengths) as the
    /// start, so the range never has a NaN bound; its end may be infinite when the lengths add up
    /// past the largest finite number.
    package static func scrollableRange(contentLength: Double, viewportLength: Double,
                                       leadingInset: Double = 0, trailingInset: Double = 0) -> ClosedRange<Double> {
        let lower = leadingInset.isFinite ? 0 - leadingInset : 0   // 0 - 0 is 0, not -0
        let upper = contentLength + (trailingInset.isFinite ? trailingInset : 0) - viewportLength
        return lower...(upper.isNaN ? lower : max(lower, upper))
    }

    /// The phase of a scroll view whose finger just lifted: coasting to a resting offset, or idle.
    ///
    /// - Parameters:
    ///   - offset: The leading edge of the viewport now.
    ///   - velocity: Points per second (convert UIKit's with ``pointsPerSecond(fromPointsPerMillisecond:)``).
    ///   - targetOffset: Where the toolkit says the motion stops (UIKit's `targetContentOffset`), or
    ///     `nil` when it does not say (SwiftUI). `nil`, infinite or NaN: the resting offset is
    ///     projected from the velocity and the rate instead.
    ///   - rate: The deceleration rate, strictly between 0 and 1.
    ///   - range: The scrollable range (`scrollableRange(contentLength:viewportLength:leadingInset:trailingInset:)`);
    ///     the resting offset is clamped to it, as the scroll view clamps it.
    /// - Returns: ``MotionPhase/decelerating(restingOffset:rate:)``, or ``MotionPhase/idle`` when
    ///   the motion ends where it is.
    /// - Throws: ``PrefetchError`` (``PrefetchError/Code/invalidArgument``) naming the value when the
    ///   rate is outside (0, 1), the offset or the velocity is not finite, or the resting offset is
    ///   not finite (a projection past the largest finite number into a range without an end).
    package static func decelerationPhase(offset: Double, velocity: Double, targetOffset: Double?, rate: Double,
                                         range: ClosedRange<Double>) throws -> MotionPhase {
        guard Deceleration.isValid(rate: rate) else {
            throw PrefetchError(.invalidArgument,
                                "deceleration rate \(rate) must lie strictly between 0 and 1 (UIKit's normal rate is \(normalDecelerationRate))")
        }
        guard offset.isFinite else { throw PrefetchError(.invalidArgument, "content offset \(offset) must be finite") }
        guard velocity.isFinite else { throw PrefetchError(.invalidArgument, "scroll velocity \(velocity) must be finite") }
        let rest: Double
        if let targetOffset, targetOffset.isFinite {
            rest = targetOffset
        } else {
            rest = Deceleration.restingOffset(from: offset, velocity: velocity, rate: rate)
        }
        let clamped = min(max(rest, range.lowerBound), range.upperBound)
        guard clamped.isFinite else {
            throw PrefetchError(.invalidArgument,
                                "the fling from offset \(offset) at \(velocity) points per second and rate \(rate) comes to rest at \(clamped), which is not finite (scrollable range \(range))")
        }
        return clamped == offset ? .idle : .decelerating(restingOffset: clamped, rate: rate)
    }

    /// Which way a page scroll goes.
    package typealias PageDirection = PageScrollDirection

    /// The destination of a page scroll (VoiceOver, a keyboard's Page Up / Page Down): one viewport
    /// less `overlap` in `direction`, clamped to `range`.
    ///
    /// ```swift
    /// ScrollTranslation.pageDestination(from: 1_000, direction: .forward, viewportLength: 600,
    ///                                   overlap: 40, range: 0...5_000)   // 1_560
    /// ```
    package static func pageDestination(from offset: Double, direction: PageDirection, viewportLength: Double,
                                       overlap: Double = 0, range: ClosedRange<Double>) -> Double {
        let step = max(0, viewportLength - max(0, overlap))
        let target = direction == .forward ? offset + step : offset - step
        return min(max(target, range.lowerBound), range.upperBound)
    }
}

/// Which way a page scroll goes (VoiceOver's three-finger swipes, a keyboard's Page Up and Page
/// Down): toward the end of the content or toward its start.
public enum PageScrollDirection: Sendable, Hashable {
    /// Toward the end of the content (VoiceOver's three-finger swipe up, Page Down).
    case forward
    /// Toward the start of the content (VoiceOver's three-finger swipe down, Page Up).
    case backward
}
