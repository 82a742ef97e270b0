import Foundation

/// Ends an animated scroll that nobody says has ended: UIKit sends no callback after the last frame
/// of an animation it was not asked about (or whose `scrollViewDidEndScrollingAnimation` the app does
/// not forward), and SwiftUI may leave `.animating` without an `.idle` phase. After each animated
/// frame the check waits ``ScrollTracker/animationQuietTime``; when no frame came meanwhile, it calls
/// ``onQuiet`` (the prefetcher then tells the controller the view rests, and plans it at rest).
///
/// One wait is pending at a time: a wait that finds a later animated frame waits again for the rest
/// of the quiet time after that frame, so the motion ends at the latest a quiet time after its last
/// frame, and a long animation keeps one timer, not one per frame.
@MainActor
package final class QuietAnimationCheck {
    /// Runs an action once, after a delay, on the main actor. Tests replace it with one that records
    /// the action and runs it when the test says.
    package typealias Schedule = @MainActor (_ delay: Duration, _ action: @escaping @MainActor () -> Void) -> Void

    /// How the check waits: a task sleeping on the continuous clock by default.
    package var schedule: Schedule
    /// What runs when an animation went quiet.
    package var onQuiet: @MainActor () -> Void = {}
    private let now: @MainActor () -> Double
    /// The time of the last frame, while it was an animated one.
    private var lastAnimatedFrame: Double?
    private var waiting = false

    /// Creates a check reading time (seconds) from `now`.
    package init(now: @escaping @MainActor () -> Double, schedule: @escaping Schedule = QuietAnimationCheck.sleepThenRun) {
        self.now = now
        self.schedule = schedule
    }

    /// A frame was sent to the adapter; `animating` when it belongs to an animated scroll (UIKit's
    /// move with neither flag, an announced scroll; SwiftUI's `.animating`).
    package func frameSent(animating: Bool) {
        lastAnimatedFrame = animating ? now() : nil
        if animating, !waiting { wait(ScrollTracker.animationQuietTime) }
    }

    private func wait(_ seconds: Double) {
        waiting = true
        schedule(.seconds(seconds)) { [weak self] in self?.check() }
    }

    private func check() {
        waiting = false
        guard let last = lastAnimatedFrame else { return }   // a frame at rest (or a gesture) came since
        let left = ScrollTracker.animationQuietTime - (now() - last)
        // A frame came during the wait: wait for the rest of the quiet time after it (a millisecond
        // of slack for the two clocks).
        guard left <= 0.001 else { return wait(left) }
        lastAnimatedFrame = nil
        onQuiet()
    }

    /// The default ``schedule``: ``sleeping(on:)`` the continuous clock.
    package static func sleepThenRun(_ delay: Duration, _ action: @escaping @MainActor () -> Void) {
        sleeping(on: ContinuousClock())(delay, action)
    }

    /// The time the adapters read, in seconds since this call, from `clock`: how a prefetcher that
    /// was given a clock turns its instants into the planner's numbers.
    package static func seconds<C: Clock>(on clock: C) -> @MainActor () -> Double where C.Duration == Duration {
        let clock = ErasedClock(clock)
        return { clock.now().seconds }
    }

    /// A ``schedule`` that sleeps `delay` on `clock` and then runs the action on the main actor;
    /// nothing runs when the sleep is cancelled.
    package static func sleeping<C: Clock>(on clock: C) -> Schedule where C.Duration == Duration {
        let clock = ErasedClock(clock)
        return { delay, action in
            Task { @MainActor in
                guard (try? await clock.sleep(delay)) != nil else { return }
                action()
            }
        }
    }
}
