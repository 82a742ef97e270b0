import Testing
@testable import PrefetchKit

private typealias Scheduler = FetchScheduler<Int>
private typealias Consumer = Scheduler.ConsumerID

private func started(_ action: Scheduler.RequestAction) -> [Int] { action.start.map { [$0.id] } ?? [] }
private func started(_ action: Scheduler.ReleaseAction) -> [Int] {
    if case .cancel(_, let next?) = action { [next.id] } else { [] }
}
private func started(_ action: Scheduler.FinishAction) -> [Int] {
    if case .deliver(_, let next?) = action { [next.id] } else { [] }
}
private func cancelled(_ action: Scheduler.ReleaseAction) -> [Int] {
    if case .cancel(let load, _) = action { [load.id] } else { [] }
}

private func load(of id: Int, in scheduler: Scheduler) -> Scheduler.LoadID? {
    if case .running(let load) = scheduler.phase(of: id) { load } else { nil }
}

@Suite struct FetchSchedulerTests {
    @Test func coalescesRequestsForOneIDIntoOneLoad() throws {
        // Given an idle scheduler
        var s = Scheduler(maxConcurrentLoads: 2)
        // When a prefetch and two consumers ask for the same id
        let first = s.request(7, interest: .prefetch, priority: .prefetch)
        let second = s.request(7, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        let third = s.request(7, interest: .consumer(Consumer(rawValue: 2)), priority: .visible)
        // Then one load starts and the finish delivers to both consumers
        #expect(started(first) == [7] && !first.joined)
        #expect(second == .init(joined: true, start: nil) && third == .init(joined: true, start: nil))
        let running = try #require(load(of: 7, in: s))
        let done = s.finished(7, load: running)
        guard case .deliver(let consumers, nil) = done else {
            Issue.record("expected a delivery, got \(done)")
            return
        }
        #expect(Set(consumers) == [Consumer(rawValue: 1), Consumer(rawValue: 2)])
        #expect(!s.contains(7))
        let again = s.finished(7, load: running)
        #expect(again == .stale)
        s._checkInvariants()
    }

    @Test func visibleRequestJumpsTheQueueWhileWaiting() {
        // Given a full slot and three queued prefetches, nearest first
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(0, interest: .prefetch, priority: .prefetch)
        for id in 1...3 { s.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id))) }
        // When the farthest one becomes visible
        s.request(3, interest: .consumer(Consumer(rawValue: 9)), priority: .visible)
        s._checkInvariants()
        // Then it starts next, before the nearer prefetches
        let actions = s.finished(0, load: load(of: 0, in: s)!)
        #expect(started(actions) == [3])
        #expect(s.priority(of: 3) == .visible)
        s._checkInvariants()
    }

    @Test func withdrawingThePrefetchKeepsAConsumersLoad() {
        // Apple's sample's bug: a cancel after a cell attached its handler left the cell blank.
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .prefetch, priority: .prefetch)
        s.request(1, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        let actions = s.release(1, interest: .prefetch)
        #expect(actions == .none)
        #expect(s.phase(of: 1) != nil)
        let done = s.finished(1, load: load(of: 1, in: s)!)
        guard case .deliver(let consumers, _) = done else {
            Issue.record("expected a delivery, got \(done)")
            return
        }
        #expect(Array(consumers) == [Consumer(rawValue: 1)])
    }

    @Test func cancellationBeforeStartWhileRunningAndAfterCompletion() {
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .prefetch, priority: .prefetch)
        s.request(2, interest: .prefetch, priority: .prefetch)
        // Before start: a queued load that loses all interest never starts
        let dropped = s.release(2, interest: .prefetch)
        #expect(dropped == .none)
        #expect(!s.contains(2))
        // While running: cancel, slot freed at once, the next queued load starts
        s.request(3, interest: .prefetch, priority: .prefetch)
        let running = load(of: 1, in: s)!
        let actions = s.release(1, interest: .prefetch)
        #expect(cancelled(actions) == [1])
        #expect(started(actions) == [3])
        #expect(s.runningCount == 1)
        // The cancelled load's late finish is ignored
        let late = s.finished(1, load: running)
        #expect(late == .stale)
        // After completion: a release is a no-op
        let l3 = load(of: 3, in: s)!
        _ = s.finished(3, load: l3)
        let afterCompletion = s.release(3, interest: .prefetch)
        #expect(afterCompletion == .none)
        // Unknown ids are no-ops
        let unknown = s.release(42, interest: .consumer(Consumer(rawValue: 5)))
        let unheld = s.setPriority(42, interest: .prefetch, priority: .visible)
        #expect(unknown == .none && !unheld.held)
        s._checkInvariants()
    }

    @Test func capHoldsUnderAStormOfPrefetchCancelAndRePrefetch() {
        var s = Scheduler(maxConcurrentLoads: 4)
        var running = Set<Int>()
        for round in 0..<50 {
            for id in 0..<40 {
                let action = s.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id)))
                if let start = action.start { running.insert(start.id) }
            }
            for id in stride(from: round % 3, to: 40, by: 2) {
                if case .cancel(let load, let next) = s.release(id, interest: .prefetch) {
                    running.remove(load.id)
                    if let next { running.insert(next.id) }
                }
            }
            #expect(s.runningCount <= 4)
            #expect(running.count == s.runningCount)
            s._checkInvariants()
        }
    }

    @Test func releasingABatchNeverStartsALoadTheBatchReleases() {
        // Given one running and three queued prefetches, and one more queued that stays
        var s = Scheduler(maxConcurrentLoads: 1)
        for id in 1...5 { s.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id))) }
        // When the first four are cancelled together
        let actions = s.release([1, 2, 3, 4], interest: .prefetch)
        // Then only the running one is cancelled, and only the survivor starts
        #expect(actions.cancel.map(\.id) == [1])
        #expect(actions.start.map(\.id) == [5])
        s._checkInvariants()
        // One by one, the same cancels would have started (and cancelled) 2, 3 and 4.
        var t = Scheduler(maxConcurrentLoads: 1)
        for id in 1...5 { t.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id))) }
        let oneByOne = [1, 2, 3, 4].flatMap { started(t.release($0, interest: .prefetch)) }
        #expect(oneByOne == [2, 3, 4, 5])
    }

    @Test func priorityFallsBackWhenTheInterestThatSetItLeaves() {
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(0, interest: .prefetch, priority: .prefetch)
        s.request(1, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: 4))
        s.request(1, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        s.request(1, interest: .consumer(Consumer(rawValue: 2)), priority: FetchPriority(level: .prefetch, order: 9))
        #expect(s.priority(of: 1) == .visible)
        s.release(1, interest: .consumer(Consumer(rawValue: 1)))
        #expect(s.priority(of: 1) == FetchPriority(level: .prefetch, order: 4))
        s.request(1, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: 12))  // re-prioritised lower
        #expect(s.priority(of: 1) == FetchPriority(level: .prefetch, order: 9))
        s._checkInvariants()
    }

    @Test func equalPrioritiesStartInRequestOrder() {
        var s = Scheduler(maxConcurrentLoads: 1)
        for id in [5, 3, 9, 1] { s.request(id, interest: .prefetch, priority: .prefetch) }
        var order: [Int] = [5]
        while let next = s.runningLoads.first {
            order += started(s.finished(next.id, load: next.load))
        }
        #expect(order == [5, 3, 9, 1])
    }

    @Test func cancelAllAbandonsEveryConsumer() {
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        s.request(2, interest: .consumer(Consumer(rawValue: 2)), priority: .visible)
        let actions = s.cancelAll()
        #expect(actions.cancel.map(\.id) == [1])
        #expect(Set(actions.abandon) == [Consumer(rawValue: 1), Consumer(rawValue: 2)])
        #expect(s.runningCount == 0 && s.waitingCount == 0)
        s._checkInvariants()
    }

    @Test func manyConsumersOfOneIDComeAndGoInAnyOrder() {
        // Given one id held by five consumers at different priorities
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(0, interest: .prefetch, priority: .prefetch)  // holds the slot
        for c in 1...5 {
            s.request(9, interest: .consumer(Consumer(rawValue: UInt64(c))), priority: FetchPriority(level: .prefetch, order: Double(10 - c)))
        }
        #expect(s.priority(of: 9) == FetchPriority(level: .prefetch, order: 5))
        // When the most urgent leaves, one in the middle leaves, and an older one is re-prioritised
        s.release(9, interest: .consumer(Consumer(rawValue: 5)))
        s.release(9, interest: .consumer(Consumer(rawValue: 2)))
        #expect(s.priority(of: 9) == FetchPriority(level: .prefetch, order: 6))
        s.setPriority(9, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        s._checkInvariants()
        // Then the priority follows, and the delivery goes to exactly the three left
        #expect(s.priority(of: 9) == .visible)
        #expect(Set(s.consumers(of: 9)) == [Consumer(rawValue: 1), Consumer(rawValue: 3), Consumer(rawValue: 4)])
        let first = s.finished(0, load: load(of: 0, in: s)!)
        #expect(started(first) == [9])
        guard case .deliver(let consumers, nil) = s.finished(9, load: load(of: 9, in: s)!) else {
            Issue.record("expected a delivery")
            return
        }
        #expect(consumers.count == 3 && Set(consumers) == [Consumer(rawValue: 1), Consumer(rawValue: 3), Consumer(rawValue: 4)])
    }

    @Test func aBatchUpdateReportsOnlyTheIDsItNewlyPrefetches() {
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        s.request(2, interest: .prefetch, priority: .prefetch)
        let update = s.updatePrefetch(
            [(1, .prefetch), (2, FetchPriority(level: .prefetch, order: 3)), (3, .prefetch), (3, .background)], releasing: [])
        // 1 joins a consumer's load, 3 is new; 2 and the second 3 only change priority
        #expect(update.added == [Scheduler.Added(1, joined: true), Scheduler.Added(3, joined: false)])
        #expect(update.start.isEmpty && update.cancel.isEmpty)
        #expect(s.priority(of: 3) == .background)
        s._checkInvariants()
    }
}
