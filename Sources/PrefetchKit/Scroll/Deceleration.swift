import Foundation

/// UIKit's deceleration: how a flung scroll view coasts to rest. The package's one copy of the
/// model; the headless views' physics, the controller's forecast, the scroll adapters, and the
/// simulator's trace generator, phase inference and gesture driver all call it.
///
/// A fling released at `v₀` points per second keeps the fraction `rate` of its velocity per
/// millisecond (``normalRate`` or ``fastRate``, like `UIScrollView.DecelerationRate`). With the
/// decay `k = 1000·ln(rate)` per second (negative), after `t` seconds:
///
/// - the velocity is `v₀·rate^(1000·t) = v₀·e^(k·t)`;
/// - the offset is `x₀ + v₀/k·(e^(k·t) − 1)`, which tends to the resting offset `x₀ + v₀/(−k)`;
/// - the view stops once its speed falls below ``restingSpeed``, which happens
///   ``stoppingDistance(decay:)`` short of the resting offset.
///
/// ```swift
/// Deceleration.restingOffset(from: 1_000, velocity: 6_006, rate: Deceleration.normalRate)  // ≈ 4_000
/// ```
///
/// Each function keeps the order of operations of the code it replaced, so every caller gets the
/// same `Double` as before; where two callers compute one quantity in two orders (the offset
/// with `rate^ms` or with `e^(k·t)`, a speed from a mean at either end of the interval), both
/// forms are here, each documented. The enum depends on nothing else in PrefetchKit.
package enum Deceleration {
    /// UIKit's normal rate (`UIScrollView.DecelerationRate.normal`): the fraction of its velocity
    /// a coasting scroll view keeps per millisecond, 0.998.
    package static let normalRate = 0.998

    /// UIKit's fast rate (`UIScrollView.DecelerationRate.fast`): 0.99 per millisecond.
    package static let fastRate = 0.99

    /// The speed, in points per second, below which a coasting view stops (and a drag counts as
    /// no motion): 1.
    package static let restingSpeed = 1.0

    /// Whether `rate` can be a deceleration rate: strictly between 0 and 1 (NaN cannot).
    ///
    /// - Complexity: O(1).
    package static func isValid(rate: Double) -> Bool {
        rate > 0 && rate < 1
    }

    /// The decay `k = 1000·ln(rate)`, per second: negative for a valid rate. The velocity after
    /// `t` seconds is `v₀·e^(k·t)`.
    ///
    /// - Complexity: O(1).
    package static func decayConstant(rate: Double) -> Double {
        1000 * log(rate)
    }

    /// The fraction of its velocity a fling keeps after `milliseconds`: `rate^milliseconds`.
    ///
    /// - Complexity: O(1).
    package static func retainedFraction(afterMilliseconds milliseconds: Double, rate: Double) -> Double {
        pow(rate, milliseconds)
    }

    /// The velocity after `milliseconds` of coasting from `velocity` (any unit per second):
    /// `velocity · rate^milliseconds`.
    ///
    /// - Complexity: O(1).
    package static func velocity(from velocity: Double, afterMilliseconds milliseconds: Double, rate: Double) -> Double {
        velocity * pow(rate, milliseconds)
    }

    /// The distance, in points, covered in `milliseconds` of coasting from `velocity` points per
    /// second: `velocity / 1000 · (rate^milliseconds − 1) / ln(rate)`, computed in that order.
    ///
    /// The same curve as ``offset(after:from:restingAt:decay:)``, written with `rate^ms` from the
    /// release velocity; the two may differ in the last bits.
    ///
    /// - Complexity: O(1).
    package static func distance(from velocity: Double, afterMilliseconds milliseconds: Double, rate: Double) -> Double {
        velocity / 1000 * (pow(rate, milliseconds) - 1) / log(rate)
    }

    /// The distance, in points, a fling at `velocity` points per second covers before it comes to
    /// rest (the curve's limit, before any clamping): `velocity / 1000 / (−ln rate)`.
    ///
    /// Where the minus sign sits does not change the result (IEEE negation is exact and rounding
    /// is symmetric), so `-velocity / 1000 / ln(rate)` and `offset − velocity / 1000 / ln(rate)`
    /// give the same `Double`s as this and ``restingOffset(from:velocity:rate:)``.
    ///
    /// At 0.998 and 6,006 points per second that is 6.006 / 0.0020020 ≈ 3,000 points.
    ///
    /// - Complexity: O(1).
    package static func restingDistance(from velocity: Double, rate: Double) -> Double {
        velocity / 1_000 / -log(rate)
    }

    /// Where a fling that leaves `offset` at `velocity` points per second comes to rest, before
    /// clamping: `offset` plus ``restingDistance(from:rate:)``.
    ///
    /// - Complexity: O(1).
    package static func restingOffset(from offset: Double, velocity: Double, rate: Double) -> Double {
        offset + restingDistance(from: velocity, rate: rate)
    }

    /// The release velocity, in points per second, of a fling that comes to rest `distance` points
    /// further on: the inverse of ``restingDistance(from:rate:)``, computed as
    /// `(−distance · 1000) · ln(rate)` (in that order, which is not always the same `Double` as
    /// `−distance` times ``decayConstant(rate:)``).
    ///
    /// - Complexity: O(1).
    package static func releaseVelocity(restingAfter distance: Double, rate: Double) -> Double {
        -distance * 1000 * log(rate)
    }

    /// The offset `elapsed` seconds into a fling from `start` toward `rest` with decay `decay`
    /// (``decayConstant(rate:)``): `rest + (start − rest)·e^(decay·elapsed)`.
    ///
    /// The same curve as ``distance(from:afterMilliseconds:rate:)``, written from the resting
    /// offset with `e^(k·t)`; the two may differ in the last bits.
    ///
    /// - Complexity: O(1).
    package static func offset(after elapsed: Double, from start: Double, restingAt rest: Double, decay: Double) -> Double {
        rest + (start - rest) * exp(decay * elapsed)
    }

    /// The seconds a fling with decay `decay` takes to cover `fraction` of its way to rest (0 ≤
    /// fraction < 1): `ln(1 − fraction) / decay`, the inverse of ``offset(after:from:restingAt:decay:)``.
    ///
    /// The fling stops before `fraction` reaches 1 (see ``stoppingDistance(decay:)``), so its time
    /// to rest is this at `1 − stoppingDistance / |rest − start|`.
    ///
    /// - Complexity: O(1).
    package static func elapsed(toCover fraction: Double, decay: Double) -> Double {
        log(1 - fraction) / decay
    }

    /// How far short of its resting offset a fling with decay `decay` stops, in points: where its
    /// speed falls below ``restingSpeed``, `restingSpeed / (−decay)`.
    ///
    /// - Complexity: O(1).
    package static func stoppingDistance(decay: Double) -> Double {
        restingSpeed / -decay
    }

    /// The speed, in points per second, of a fling with decay `decay` that has `remainingDistance`
    /// points left to its resting offset: `remainingDistance · (−decay)` (the speed is
    /// proportional to the way left).
    ///
    /// - Complexity: O(1).
    package static func speed(remainingDistance: Double, decay: Double) -> Double {
        remainingDistance * -decay
    }

    /// The speed at the start of an interval of `milliseconds` over which a fling's mean speed was
    /// `meanSpeed`: `meanSpeed · milliseconds · ln(rate) / (rate^milliseconds − 1)`, in that order.
    ///
    /// For the speed at the end of a measured interval see ``finalSpeedFactor(overSeconds:rate:)``.
    ///
    /// - Complexity: O(1).
    package static func initialSpeed(fromMeanSpeed meanSpeed: Double, overMilliseconds milliseconds: Double, rate: Double) -> Double {
        meanSpeed * milliseconds * log(rate) / (pow(rate, milliseconds) - 1)
    }

    /// What a fling's mean speed over an interval of `seconds` is multiplied by to give its speed at
    /// the interval's end: `k·Δt·e^(k·Δt) / (e^(k·Δt) − 1)` with `k` = ``decayConstant(rate:)``
    /// (less than 1: the mean is faster than the end). Not finite when `seconds` is 0; callers
    /// keep the mean then.
    ///
    /// - Complexity: O(1).
    package static func finalSpeedFactor(overSeconds seconds: Double, rate: Double) -> Double {
        let exponent = decayConstant(rate: rate) * seconds
        let kept = exp(exponent)
        return exponent * kept / (kept - 1)
    }
}
