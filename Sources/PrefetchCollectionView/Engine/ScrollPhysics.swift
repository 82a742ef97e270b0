import Foundation
import PrefetchKit

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

    /// The distance, in points, covered in `milliseconds` of coasting from `velocity` points per
    /// second (`Deceleration.distance(from:afterMilliseconds:rate:)`).
    ///
    /// - Complexity: O(1).
    public func distance(from velocity: Double, after milliseconds: Double) -> Double {
        Deceleration.distance(from: velocity, afterMilliseconds: milliseconds, rate: rawValue)
    }

    /// The distance, in points, a fling at `velocity` points per second covers before it stops
    /// (`Deceleration.restingDistance(from:rate:)`, before clamping).
    ///
    /// - Complexity: O(1).
    public func restingDistance(from velocity: Double) -> Double {
        Deceleration.restingDistance(from: velocity, rate: rawValue)
    }
}

/// The direction the content moves under the viewport.
public enum ScrollDirection: Hashable, Sendable {
    /// Toward the end of the content (the content offset grows).
    case forward
    /// Toward the start of the content.
    case backward
    /// At rest.
    case none
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
    case animating(startTime: Double, from: Double, to: Double, duration: Double)
}

/// Speeds below this, in points per second, end a fling (`Deceleration.restingSpeed`).
let restingSpeed = Deceleration.restingSpeed
/// How long `setContentOffset(_:animated: true)` takes, in seconds.
let scrollAnimationDuration = 0.3
