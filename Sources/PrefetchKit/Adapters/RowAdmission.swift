/// Decides when a row that appeared may ask for its data itself, so that a row on screen for one
/// frame of a fling starts no work of its own.
///
/// SwiftUI creates a row's view (and runs its `.task`) for every row a lazy stack passes, however
/// briefly. A row asks this first:
/// - the controller holds the row at ``FetchPriority/Level/prefetch`` or above (it will stay on
///   screen long enough): start now at that priority, which joins the load the controller's target
///   already asked for;
/// - the controller holds it as ``FetchPriority/Level/speculative`` (a fly-past): wait; the
///   controller's own request is all the work it gets, and the next frame decides again;
/// - the controller does not hold it (no frame yet, no target, or a system without scroll
///   geometry updates): wait until the row has been on screen for ``dwell`` seconds, then start
///   at ``FetchPriority/visible``.
///
/// A row that leaves the screen before it may start cancels its wait, so it never starts.
///
/// ```swift
/// let admission = RowAdmission()
/// admission.decision(requested: controller.requestedPriority(of: item), appearedAt: 10.0, now: 10.016)
/// ```
package struct RowAdmission: Sendable, Hashable {
    /// What a row does now.
    package enum Decision: Sendable, Hashable {
        /// Ask for the value at this priority.
        case start(FetchPriority)
        /// Ask again at the next frame, or at the given time at the latest (seconds).
        case wait(until: Double?)
    }

    /// How long a row the controller does not hold must stay on screen before it starts, in seconds.
    package var dwell: Double

    /// Creates an admission rule.
    /// - Parameter dwell: Seconds; 0.1 (six frames at 60 Hz) by default. A negative or non-finite
    ///   value counts as 0.
    package init(dwell: Double = 0.1) {
        self.dwell = dwell.isFinite ? max(0, dwell) : 0
    }

    /// The decision for a row that appeared at `appearedAt` (seconds), asked at `now`, given the
    /// priority the controller holds it at (``PrefetchController/requestedPriority(of:)``).
    package func decision(requested: FetchPriority?, appearedAt: Double, now: Double) -> Decision {
        if let requested {
            return requested.level >= .prefetch ? .start(requested) : .wait(until: nil)
        }
        let due = appearedAt + dwell
        return now >= due ? .start(.visible) : .wait(until: due)
    }
}
