import Testing
@testable import PrefetchKit

/// The preview slots (`FetcherConfiguration.previewSlots`): loads of previews, and full values'
/// first bytes once previews arrive on the way, take slots beyond the cap; loads completing full
/// values stay within it.
@Suite struct PreviewSlotTests {
    private typealias Scheduler = FetchScheduler<Int>

    @Test func previewLoadsTakeTheirOwnSlotsAndFullValuesStayWithinTheCap() {
        var s = Scheduler(maxConcurrentLoads: 1, previewSlots: 2)
        #expect(s.request(1, interest: .prefetch, priority: .visible).start?.id == 1)
        #expect(s.request(2, interest: .prefetch, priority: .visible).start == nil, "a second full value waits for the cap")
        #expect(s.request(3, interest: .prefetch, priority: .prefetch, quality: .preview).start?.id == 3)
        #expect(s.request(4, interest: .prefetch, priority: .prefetch, quality: .preview).start?.id == 4)
        #expect(s.request(5, interest: .prefetch, priority: .prefetch, quality: .preview).start == nil, "every slot is taken")
        #expect(s.runningCount == 3 && s.waitingCount == 2)
        s._checkInvariants()
        // A preview's slot goes to the waiting preview, not to the full value (its slot is taken).
        guard case .deliver(_, let next) = s.finished(3, load: s.runningLoads.first { $0.id == 3 }!.load) else {
            Issue.record("the preview's finish was stale")
            return
        }
        #expect(next?.id == 5)
        // The full value's slot goes to the waiting full value.
        guard case .deliver(_, let after) = s.finished(1, load: s.runningLoads.first { $0.id == 1 }!.load) else {
            Issue.record("the full value's finish was stale")
            return
        }
        #expect(after?.id == 2)
        s._checkInvariants()
    }

    @Test func withoutPreviewSlotsAPreviewWaitsLikeAnyLoad() {
        var s = Scheduler(maxConcurrentLoads: 1)
        #expect(s.request(1, interest: .prefetch, priority: .visible).start?.id == 1)
        #expect(s.request(2, interest: .prefetch, priority: .prefetch, quality: .preview).start == nil)
        s._checkInvariants()
    }

    @Test func aFullValuesFirstBytesTakeAPreviewSlotOnlyOncePreviewsArriveOnTheWay() {
        var s = Scheduler(maxConcurrentLoads: 1, previewSlots: 1)
        #expect(s.request(1, interest: .prefetch, priority: .visible).start?.id == 1)
        #expect(s.request(2, interest: .prefetch, priority: .visible).start == nil,
                "until a preview arrives on the way, a full value's load needs a full value's slot")
        // Item 1's preview arrives on its way to the full value: from now on 2's first bytes are a preview's.
        let opened = s.previewsArriveOnTheWay()
        #expect(opened.start.map(\.id) == [2] && opened.preempt.isEmpty)
        #expect(s.previewsArriveOnTheWay().start.isEmpty, "only the first call changes anything")
        #expect(s.notePreview(1) == nil, "1 completes its preview in the one full value's slot")
        s._checkInvariants()
        // 2's preview arrives too: two loads would complete full values, one more than the cap, so 2 waits again.
        guard let yielded = s.notePreview(2) else {
            Issue.record("2 kept running beyond the cap")
            return
        }
        #expect(yielded.preempt.map(\.id) == [2] && yielded.start.isEmpty)
        #expect(s.phase(of: 2) == .waiting && s.runningCount == 1)
        s._checkInvariants()
        // When 1 ends, 2 resumes in its slot.
        guard case .deliver(_, let next) = s.finished(1, load: s.runningLoads[0].load) else {
            Issue.record("1's finish was stale")
            return
        }
        #expect(next?.id == 2)
        s._checkInvariants()
    }

    @Test func anUpgradedPreviewKeepsItsSlotUntilItsPreviewIsIn() {
        var s = Scheduler(maxConcurrentLoads: 1, previewSlots: 1)
        _ = s.request(1, interest: .prefetch, priority: .visible)
        #expect(s.request(2, interest: .prefetch, priority: .prefetch, quality: .preview).start?.id == 2)
        // The user scrolls to 2: its load now targets the full value, in the preview slot it has.
        _ = s.request(2, interest: .prefetch, priority: .visible)
        #expect(s.targetQuality(of: 2) == .full && s.runningCount == 2)
        _ = s.request(3, interest: .prefetch, priority: .visible)
        s._checkInvariants()
        // 2's preview is in (its preview load ended): completing it needs the one full value's slot, which 1 holds.
        guard let yielded = s.notePreview(2) else {
            Issue.record("2 went on beyond the cap")
            return
        }
        #expect(yielded.preempt.map(\.id) == [2] && yielded.start.isEmpty, "3 needs a full value's slot too")
        s._checkInvariants()
        guard case .deliver(_, let next) = s.finished(1, load: s.runningLoads.first { $0.id == 1 }!.load) else {
            Issue.record("1's finish was stale")
            return
        }
        #expect(next?.id == 3, "previews first: 3 shows nothing, 2 shows its preview")
        s._checkInvariants()
    }

    @Test func aNegativeCountIsRefusedByName() {
        var configuration = FetcherConfiguration()
        configuration.previewSlots = -1
        #expect(throws: PrefetchError.self) { try configuration.validate() }
        do {
            try configuration.validate()
        } catch let error as PrefetchError {
            #expect(error.message.contains("previewSlots") && error.message.contains("-1"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Random events with both qualities, previews arriving and the switch to first bytes in
    /// preview slots, checked against the scheduler's invariants after every step.
    @Test(arguments: [(1, 0), (1, 1), (2, 3), (6, 6)], preemptionModes)
    func randomEventsKeepTheSlotRules(slots: (cap: Int, previews: Int), preemption: FetchPreemption) {
        var draw = Draw(rng: SplitMix64(seed: 0x5107 &+ UInt64(slots.cap * 10 + slots.previews)))
        var s = Scheduler(maxConcurrentLoads: slots.cap, previewSlots: slots.previews, preemption: preemption)
        var consumer: UInt64 = 0
        var peak = 0, yields = 0, previewStarts = 0
        for step in 0..<4_000 {
            let id = draw.below(30)
            let quality: FetchQuality = draw.chance(50) ? .preview : .full
            switch draw.below(100) {
            case 0..<35:
                let interest = draw.interest(prefetchPercent: 70, lastConsumer: &consumer)
                let action = s.request(id, interest: interest, priority: draw.priority(), quality: quality, hasPreview: draw.chance(10))
                if let start = action.start, s.targetQuality(of: start.id) == .preview { previewStarts += 1 }
            case 35..<45:
                let requests = (0..<draw.below(6)).map { _ in (draw.below(30), draw.priority()) }
                let previews = Set(requests.filter { _ in draw.chance(50) }.map(\.0))
                _ = s.updatePrefetch(requests, releasing: (0..<draw.below(3)).map { _ in draw.below(30) },
                                     quality: { previews.contains($0) ? .preview : .full })
            case 45..<60:
                _ = s.release(id, interest: .prefetch)
            case 60..<75:
                // A running load's preview arrives (or a cached one is found for a waiting id).
                if s.notePreview(id) != nil { yields += 1 }
            case 75..<77:
                _ = s.previewsArriveOnTheWay()
            default:
                let running = s.runningLoads
                guard !running.isEmpty else { break }
                let done = running[draw.below(running.count)]
                _ = s.finished(done.id, load: done.load)
            }
            s._checkInvariants()
            peak = max(peak, s.runningCount)
            #expect(s.runningCount <= slots.cap + slots.previews, "step \(step)")
        }
        #expect(peak == slots.cap + slots.previews, "the preview slots were never all used")
        #expect(previewStarts > 0 && yields > 0, "previews started \(previewStarts) times, loads yielded \(yields) times")
    }
}
