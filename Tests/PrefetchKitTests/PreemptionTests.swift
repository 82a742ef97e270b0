import PrefetchTesting
import Testing
@testable import PrefetchKit

private typealias Scheduler = FetchScheduler<Int>
private typealias Load = Scheduler.RunningLoad

private func L(_ n: UInt64) -> FetchLoadID { FetchLoadID(rawValue: n) }
private func prefetch(_ order: Double) -> FetchPriority { FetchPriority(level: .prefetch, order: order) }
private func background(_ order: Double) -> FetchPriority { FetchPriority(level: .background, order: order) }

/// The pre-emption rule (`FetchPreemption`, the scheduler's documentation): named cases.
@Suite struct PreemptionTests {
    @Test func aFlingLeavesARunningRowBehindAndTheLandingRowsTakeItsSlot() {
        // Given two slots loading rows 1 and 2 ahead of a drag, and the rows a fling lands on (10, 11) waiting
        var s = Scheduler(maxConcurrentLoads: 2, preemption: .standard)
        _ = s.updatePrefetch([(1, prefetch(1)), (2, prefetch(2)), (10, prefetch(3)), (11, prefetch(4))], releasing: [])
        #expect(s.runningLoads == [Load(1, L(1)), Load(2, L(2))])
        // When the fling's forecast flies past row 1 (it ranks background now) and row 2 keeps its rank
        let update = s.updatePrefetch([(1, background(0)), (2, prefetch(2))], releasing: [])
        // Then row 1's load is stopped and its id waits again at its current priority; row 10 takes the slot
        #expect(update.preempt == [Load(1, L(1))] && update.start == [Load(10, L(3))] && update.cancel.isEmpty)
        #expect(s.phase(of: 1) == .waiting && s.priority(of: 1) == background(0) && s.isPrefetched(1))
        s._checkInvariants()
        // And the late report of the stopped load is stale; the landing rows go first, row 1 after them
        #expect(s.finished(1, load: L(1)) == .stale)
        guard case .deliver(_, let next) = s.finished(2, load: L(2)) else { Issue.record("expected a delivery"); return }
        #expect(next == Load(11, L(4)))
        guard case .deliver(_, let last) = s.finished(10, load: L(3)) else { Issue.record("expected a delivery"); return }
        #expect(last == Load(1, L(5)))
        s._checkInvariants()
    }

    @Test func aVisibleConsumerOnTheRunningLoadIsNeverPreempted() {
        // Given one slot running row 1 for a cell (a consumer), whatever its rank
        var s = Scheduler(maxConcurrentLoads: 1, preemption: .acrossLevels)
        let cell = FetchConsumerID(rawValue: 1)
        s.request(1, interest: .prefetch, priority: background(0))
        s.request(1, interest: .consumer(cell), priority: background(0))
        // When visible work arrives and waits
        let visible = s.request(2, interest: .consumer(FetchConsumerID(rawValue: 2)), priority: .visible)
        // Then row 1 keeps its slot
        #expect(visible.preempt == nil && visible.start == nil && s.phase(of: 1) == .running(L(1)))
        s._checkInvariants()
        // And once the cell lets go, the load left to the prefetch alone yields to the visible work
        let withdrawn = s.release(1, interest: .consumer(cell))
        #expect(withdrawn == .preempt(Load(1, L(1)), next: Load(2, L(2))))
        #expect(s.phase(of: 1) == .waiting)
        s._checkInvariants()
    }

    @Test func interestWithdrawnWhilePreemptedIsGoneNotRequeued() {
        // Given row 1 pre-empted for row 2
        var s = Scheduler(maxConcurrentLoads: 1, preemption: .standard)
        s.request(1, interest: .prefetch, priority: prefetch(1))
        s.request(2, interest: .prefetch, priority: prefetch(2))
        let lowered = s.request(1, interest: .prefetch, priority: background(1))
        #expect(lowered.preempt == Load(1, L(1)) && lowered.start == Load(2, L(2)) && lowered.joined)
        // When its prefetch interest is withdrawn while it waits
        let released = s.release(1, interest: .prefetch)
        // Then it is dropped: nothing to cancel, and it never starts again
        #expect(released == .none && !s.contains(1) && s.waitingCount == 0)
        guard case .deliver(_, let next) = s.finished(2, load: L(2)) else { Issue.record("expected a delivery"); return }
        #expect(next == nil && s.runningCount == 0)
        s._checkInvariants()
    }

    @Test func theSameIDPreemptedThenRestartedIsNotPreemptedBackAndForth() {
        // Given row 1 pre-empted for row 2, then restarted when row 2 finished
        var s = Scheduler(maxConcurrentLoads: 1, preemption: .standard)
        s.request(1, interest: .prefetch, priority: prefetch(1))
        s.request(2, interest: .prefetch, priority: prefetch(2))
        #expect(s.request(1, interest: .prefetch, priority: background(1)).preempt == Load(1, L(1)))
        // While it waits, ranking it back to prefetch does not stop row 2 (equal, not more urgent by the margin)
        #expect(s.request(1, interest: .prefetch, priority: prefetch(0)).preempt == nil)
        #expect(s.request(1, interest: .prefetch, priority: background(1)).preempt == nil)
        guard case .deliver(_, let next) = s.finished(2, load: L(2)) else { Issue.record("expected a delivery"); return }
        #expect(next == Load(1, L(3)))
        // When more urgent work arrives while the restarted load still ranks low
        let urgent = s.request(3, interest: .prefetch, priority: prefetch(0))
        // Then the restarted load keeps its slot: an id is pre-empted at most once while it is held
        #expect(urgent.preempt == nil && urgent.start == nil && s.phase(of: 1) == .running(L(3)))
        s._checkInvariants()
        // And once it finishes and is asked for anew, it may be pre-empted again
        guard case .deliver(_, let third) = s.finished(1, load: L(3)) else { Issue.record("expected a delivery"); return }
        #expect(third == Load(3, L(4)))
        s.request(1, interest: .prefetch, priority: prefetch(5))
        #expect(s.request(3, interest: .prefetch, priority: background(0)).preempt == Load(3, L(4)))
        s._checkInvariants()
    }

    @Test func withinALevelOnlyAnOrderBetterByMoreThanTheMarginPreempts() {
        // Given one slot running row 1 at prefetch order 5, with a margin of 1 within a level
        var s = Scheduler(maxConcurrentLoads: 1, preemption: .withinLevels(orderMargin: 1))
        s.request(1, interest: .prefetch, priority: prefetch(5))
        // When a row 0.5 nearer waits, then one exactly 1 nearer: neither is better by more than the margin
        #expect(s.request(2, interest: .prefetch, priority: prefetch(4.5)).preempt == nil)
        #expect(s.request(3, interest: .prefetch, priority: prefetch(4)).preempt == nil)
        // Then a row 1.5 nearer pre-empts it, and takes the slot itself
        let nearer = s.request(4, interest: .prefetch, priority: prefetch(3.5))
        #expect(nearer.preempt == Load(1, L(1)) && nearer.start == Load(4, L(2)))
        s._checkInvariants()
        // And the standard rule leaves the order within a level alone
        var standard = Scheduler(maxConcurrentLoads: 1, preemption: .standard)
        standard.request(1, interest: .prefetch, priority: prefetch(1_000))
        #expect(standard.request(2, interest: .prefetch, priority: prefetch(0)).preempt == nil)
    }

    @Test func neverKeepsEveryLoadToItsEnd() {
        var s = Scheduler(maxConcurrentLoads: 1, preemption: .never)
        s.request(1, interest: .prefetch, priority: background(0))
        let visible = s.request(2, interest: .prefetch, priority: .visible)
        #expect(visible.preempt == nil && s.phase(of: 1) == .running(L(1)))
        s._checkInvariants()
    }

    @Test func theRuleIsAsymmetricSoNoPairDisplacesEachOther() {
        // For every pair of drawn priorities and each rule, at most one of the two outranks the other.
        var draw = Draw(rng: SplitMix64(seed: 7))
        for rule in [FetchPreemption.acrossLevels, .standard, .withinLevels(orderMargin: 0), .withinLevels(orderMargin: 1.5)] {
            for _ in 0..<2_000 {
                let a = draw.priority(), b = draw.priority()
                #expect(!(rule.outranks(a, b) && rule.outranks(b, a)), "\(rule): \(a) and \(b) outrank each other")
                #expect(!rule.outranks(a, a), "\(rule): \(a) outranks itself")
            }
        }
    }

    @Test func invalidMarginsAreRefused() {
        for rule in [FetchPreemption(isEnabled: true, levelMargin: 0), FetchPreemption(isEnabled: true, orderMargin: -1),
                     FetchPreemption(isEnabled: true, orderMargin: .nan), FetchPreemption(isEnabled: true, levelMargin: 100, orderMargin: 1)] {
            #expect(throws: PrefetchError.self) { try FetcherConfiguration(preemption: rule) }
        }
        #expect(throws: Never.self) { try FetcherConfiguration(preemption: .withinLevels(orderMargin: 0)) }
    }

    @Test func aFetcherStopsThePreemptedLoadCountsItsRunningTimeAndRestartsIt() async throws {
        // Given one slot on a manual clock, loading row 1 for 250 ms
        let clock = ManualClock()
        let loader = ScriptedLoader<Int, Int>()
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 1), clock: clock, loader: loader)
        fetcher.updatePrefetching([(1, prefetch(1))], cancelling: [])
        await loader.waitForCalls(1)
        clock.advance(by: .milliseconds(250))
        // When a fling flies past row 1 while row 2, where it lands, asks for a slot
        fetcher.updatePrefetching([(1, background(1)), (2, prefetch(2))], cancelling: [])
        // Then row 1's load is cancelled and row 2's starts
        await loader.waitForCancellations(1)
        await loader.waitForCalls(2)
        #expect(loader.cancelledIDs == [1] && loader.calledIDs == [1, 2])
        let stats = fetcher.statistics
        #expect(stats.loadsPreempted == 1 && stats.loadsCancelled == 1 && stats.queued == 1 && stats.inFlight == 1)
        // And its 250 ms count as a cancelled load's lower bound, as a cancellation's do
        #expect(fetcher.latencyWindow.samples == [.milliseconds(250)] && fetcher.latencyWindow.cancelledCount == 1)
        // And row 1 restarts when row 2 is done, since its prefetch interest remains
        loader.succeed(2, with: 2)
        await loader.waitForCalls(3)
        #expect(loader.calledIDs == [1, 2, 1])
        loader.succeed(1, with: 1)
        #expect(try await fetcher.value(for: 1) == 1)
        fetcher.shutdown()
    }
}
