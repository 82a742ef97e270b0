import Testing
@testable import PrefetchKit

/// The pre-emption rules the property tests run under: none, the default (levels 100 apart:
/// the drawn levels 100 and 150 are not), and any higher level or an order lower by more than 1.5.
let preemptionModes: [FetchPreemption] = [.never, .standard, .withinLevels(orderMargin: 1.5)]

/// Random interleavings of every scheduler event, checked step by step against
/// `SchedulingModel`, an independent model of the documented rules.
@Suite struct FetchSchedulerPropertyTests {
    private typealias Scheduler = FetchScheduler<Int>

    @Test(arguments: [1, 2, 3, 6], preemptionModes)
    func randomInterleavingsFollowTheDocumentedRules(cap: Int, preemption: FetchPreemption) {
        let seed = UInt64(0xC0FFEE) &+ UInt64(cap)
        var draw = Draw(rng: SplitMix64(seed: seed))
        var s = Scheduler(maxConcurrentLoads: cap, preemption: preemption)
        var m = SchedulingModel(cap: cap, preemption: preemption)
        var nextConsumer: UInt64 = 0
        var finishedLoads: [(id: Int, load: FetchLoadID)] = []  // for stale reports
        var preemptions = 0
        let steps = 10_000

        /// Checks the loads an event started and pre-empted against what the rule says.
        func expectStarts(_ started: [Scheduler.RunningLoad], preempted: [Scheduler.RunningLoad] = [], _ step: Int, _ what: String) {
            let expected = m.settle()
            let starts = expected.started.map { Scheduler.RunningLoad($0.id, $0.load) }
            let stops = expected.preempted.map { Scheduler.RunningLoad($0.id, $0.load) }
            #expect(started == starts, "seed \(seed) \(preemption) step \(step) \(what): started \(started), the rule says \(starts)")
            #expect(preempted == stops, "seed \(seed) \(preemption) step \(step) \(what): pre-empted \(preempted), the rule says \(stops)")
            preemptions += stops.count
            finishedLoads += stops.map { ($0.id, $0.load) }  // a pre-empted load's report is stale too
        }

        for step in 0..<steps {
            let id = draw.below(24)
            switch draw.below(100) {
            case 0..<30:
                // A new interest: the prefetch (or its new priority), or a new consumer.
                let priority = draw.priority()
                let interest = draw.interest(prefetchPercent: 50, lastConsumer: &nextConsumer)
                let joined = m.isHeld(id)
                m.add(id, interest, priority)
                let action = s.request(id, interest: interest, priority: priority)
                #expect(action.joined == joined, "seed \(seed) step \(step): joined")
                expectStarts(action.start.map { [$0] } ?? [], preempted: action.preempt.map { [$0] } ?? [], step, "request")
            case 30..<52:
                // Withdraw a held interest (or, now and then, one that is not held).
                let held = m.heldInterests
                let pick = held.isEmpty || draw.chance(10)
                    ? (id: id, interest: FetchInterest.consumer(FetchConsumerID(rawValue: nextConsumer + 1)))
                    : held[draw.below(held.count)]
                let removal = m.remove(pick.id, pick.interest)
                let action = s.release(pick.id, interest: pick.interest)
                switch (removal, action) {
                case (.cancelled(let load), .cancel(let cancelled, let next)):
                    #expect(cancelled == Scheduler.RunningLoad(pick.id, load), "seed \(seed) step \(step): cancelled the wrong load")
                    expectStarts(next.map { [$0] } ?? [], step, "release")
                case (.notHeld, .none), (.stillHeld, .none), (.dropped, .none):
                    expectStarts([], step, "release")
                case (.stillHeld, .preempt(let stopped, let next)):
                    expectStarts([next], preempted: [stopped], step, "release")
                default:
                    Issue.record("seed \(seed) step \(step): model says \(removal), scheduler \(action)")
                }
            case 52..<57:
                // Withdraw the prefetch from a batch of ids at once.
                let batch = (0..<draw.below(6)).map { _ in draw.below(24) }
                var expectedCancels: [Int] = []
                for b in batch {
                    if case .cancelled = m.remove(b, .prefetch) { expectedCancels.append(b) }
                }
                let action = s.release(batch, interest: .prefetch)
                #expect(action.cancel.map(\.id) == expectedCancels, "seed \(seed) step \(step): batch cancels")
                expectStarts(action.start, preempted: action.preempt, step, "batch release")
            case 57..<64:
                // A controller's frame: set prefetch priorities, withdraw others.
                let requests = (0..<draw.below(6)).map { _ in (draw.below(24), draw.priority()) }
                let releasing = (0..<draw.below(4)).map { _ in draw.below(24) }
                var expectedAdded: [Scheduler.Added] = []
                for (r, priority) in requests {
                    if !m.isPrefetched(r) { expectedAdded.append(Scheduler.Added(r, joined: m.isHeld(r))) }
                    m.add(r, .prefetch, priority)
                }
                var expectedCancels: [Int] = []
                for r in releasing {
                    if case .cancelled = m.remove(r, .prefetch) { expectedCancels.append(r) }
                }
                let action = s.updatePrefetch(requests, releasing: releasing)
                #expect(action.added == expectedAdded, "seed \(seed) step \(step): newly prefetched")
                #expect(action.cancel.map(\.id) == expectedCancels, "seed \(seed) step \(step): update cancels")
                expectStarts(action.start, preempted: action.preempt, step, "update")
            case 64..<70:
                // Re-prioritise a held interest.
                let held = m.heldInterests
                guard !held.isEmpty else { break }
                let pick = held[draw.below(held.count)]
                let priority = draw.priority()
                m.add(pick.id, pick.interest, priority)
                let action = s.setPriority(pick.id, interest: pick.interest, priority: priority)
                #expect(action.held, "seed \(seed) step \(step): held")
                expectStarts(action.preempt.map { [$0.start] } ?? [], preempted: action.preempt.map { [$0.stop] } ?? [], step, "set priority")
            case 70..<72:
                // A late report for a load that ended already.
                guard let old = finishedLoads.randomElement(using: &draw.rng) else { break }
                let report = s.finished(old.id, load: old.load)
                #expect(report == .stale, "seed \(seed) step \(step): stale report")
            default:
                // A running load finishes.
                let running = m.runningIDs.sorted()
                guard !running.isEmpty else { break }
                let done = running[draw.below(running.count)]
                let load = m.load(of: done)!
                let consumers = m.finish(done)
                finishedLoads.append((done, load))
                guard case .deliver(let delivered, let next) = s.finished(done, load: load) else {
                    Issue.record("seed \(seed) step \(step): a running load's finish was stale")
                    break
                }
                #expect(Set(delivered) == consumers && delivered.count == consumers.count, "seed \(seed) step \(step): delivered to the wrong consumers")
                expectStarts(next.map { [$0] } ?? [], step, "finish")
            }
            s._checkInvariants()
            let problems = m.differences(from: s, idCount: 24)
            #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
        }
        // Each rule that can pre-empt does so often enough to be tested; the rule "never" never does.
        if preemption.isEnabled {
            #expect(preemptions >= 50, "seed \(seed) \(preemption): only \(preemptions) pre-emptions")
        } else {
            #expect(preemptions == 0)
        }
    }
}
