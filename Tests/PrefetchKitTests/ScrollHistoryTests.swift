import PrefetchTesting
import Testing
@testable import PrefetchKit

/// How the controller learns the user's habits from the frames it sees: a viewport 300 pt long
/// on 100 rows of 100 pt. Every expected count is worked out by hand in the comments.
@Suite("ScrollHistory")
struct ScrollHistoryTests {
    let rows = Rows(count: 100, height: 100)

    /// Drags from `from` to `to` in three frames and stops there, starting at `time`.
    private func drag(_ controller: PrefetchController<Int>, from: Double, to: Double, at time: Double) {
        let velocity = (to - from) / 0.1
        controller.update(frame(time, at: from + (to - from) / 2, velocity: velocity, .dragging), geometry: rows)
        controller.update(frame(time + 0.05, at: to, velocity: velocity, .dragging), geometry: rows)
        controller.update(frame(time + 0.1, at: to), geometry: rows)
    }

    @Test func motionsAreCountedWithTheirReversalsAndRecentOnesWeighMore() {
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: []), target: RecordingTarget<Int>())
        controller.update(frame(0, at: 1_000), geometry: rows)
        #expect(controller.history == .none)

        // The first motion has nothing to compare with: 600 pt down.
        drag(controller, from: 1_000, to: 1_600, at: 1)
        #expect(controller.history == ScrollHistory(motions: 0, reversals: 0, sweptLength: 600))
        // Down again: one motion, no reversal.
        drag(controller, from: 1_600, to: 2_000, at: 2)
        #expect(controller.history == ScrollHistory(motions: 1, reversals: 0, sweptLength: 400))
        // Then up: the earlier counts weigh 0.8, so motions 0.8 + 1, reversals 0 + 1.
        drag(controller, from: 2_000, to: 1_500, at: 3)
        #expect(abs(controller.history.motions - 1.8) < 1e-12 && controller.history.reversals == 1)
        #expect(controller.history.sweptLength == 500)
        // (1 + 0.2 × 4) / (1.8 + 4) with the adaptive policy's prior
        #expect(abs(controller.history.reversalShare(prior: 0.2, priorWeight: 4) - 1.8 / 5.8) < 1e-12)

        // A nudge of less than a quarter viewport (50 pt) is no motion, but it is what was travelled.
        drag(controller, from: 1_500, to: 1_550, at: 4)
        #expect(abs(controller.history.motions - 1.8) < 1e-12 && controller.history.reversals == 1)
        #expect(controller.history.sweptLength == 50)
        // While a motion runs, the swept length is how far it has gone so far.
        controller.update(frame(5, at: 1_700, velocity: 3_000, .decelerating(restingOffset: 2_600, rate: 0.998)), geometry: rows)
        #expect(controller.history.sweptLength == 150)
        controller.update(frame(5.5, at: 2_600), geometry: rows)
        // Down after up (the nudge did not count): a reversal; 1.8 × 0.8 + 1 and 1 × 0.8 + 1.
        #expect(abs(controller.history.motions - 2.44) < 1e-12)
        #expect(abs(controller.history.reversals - 1.8) < 1e-12)
        #expect(controller.history.sweptLength == 1_050)
    }

    @Test func aJumpLeavesNothingTravelledBehind() {
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: []), target: RecordingTarget<Int>())
        controller.update(frame(0, at: 0), geometry: rows)
        drag(controller, from: 0, to: 900, at: 1)
        #expect(controller.history.sweptLength == 900)
        // A pixel of drift at rest is not a jump.
        controller.update(frame(2, at: 900.5), geometry: rows)
        #expect(controller.history.sweptLength == 900)
        // A new viewport without any motion (scrollToItem without animation) is.
        controller.update(frame(3, at: 6_000), geometry: rows)
        #expect(controller.history.sweptLength == 0)
        #expect(controller.history.motions == 0)
    }

    @Test func thePolicySeesTheHistory() {
        // A policy that holds everything from the top down to the length the latest motion swept.
        struct SweptPolicy: PrefetchPolicy {
            var name: String { "swept" }
            func plan(for context: ScrollContext) -> PrefetchPlan {
                PrefetchPlan(regions: context.history.sweptLength > 0 ? [0..<context.history.sweptLength] : [])
            }
        }
        let target = RecordingTarget<Int>()
        let controller = PrefetchController<Int>(policy: SweptPolicy(), target: target)
        controller.update(frame(0, at: 0), geometry: rows)
        #expect(Set(target.requested.keys) == [0, 1, 2])
        // After 900 pt down it holds rows 0–8 and the viewport's rows 9–11.
        drag(controller, from: 0, to: 900, at: 1)
        #expect(Set(target.requested.keys) == Set(0...11))
        // After a jump, only the new viewport.
        controller.update(frame(3, at: 6_000), geometry: rows)
        #expect(Set(target.requested.keys) == [60, 61, 62])
    }

    @Test func outOfRangeValuesAreClamped() {
        let history = ScrollHistory(motions: -3, reversals: 2, sweptLength: .nan)
        #expect(history == ScrollHistory(motions: 0, reversals: 0, sweptLength: 0))
        #expect(ScrollHistory(motions: 2, reversals: 5, sweptLength: -1) == ScrollHistory(motions: 2, reversals: 2, sweptLength: 0))
        // With no motions and no prior weight the share is the prior, clamped to 0...1.
        #expect(ScrollHistory.none.reversalShare(prior: 0.3, priorWeight: 0) == 0.3)
        #expect(ScrollHistory.none.reversalShare(prior: 7, priorWeight: 4) == 1)
        #expect(ScrollHistory(motions: 4, reversals: 4, sweptLength: 0).reversalShare(prior: 0, priorWeight: 4) == 0.5)
    }
}
