import Testing
@testable import PrefetchKit

private typealias Scheduler = FetchScheduler<Int>
private typealias Consumer = Scheduler.ConsumerID

private func started(_ actions: [Scheduler.Action]) -> [Int] {
    actions.compactMap { if case .start(let id, _) = $0 { id } else { nil } }
}

private func cancelled(_ actions: [Scheduler.Action]) -> [Int] {
    actions.compactMap { if case .cancel(let id, _) = $0 { id } else { nil } }
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
        #expect(started(first) == [7])
        #expect(second.isEmpty && third.isEmpty)
        let running = try #require(load(of: 7, in: s))
        let done = s.finished(7, load: running)
        guard case .deliver(7, running, let consumers, let prefetched) = done.first else {
            Issue.record("expected a delivery, got \(done)")
            return
        }
        #expect(Set(consumers) == [Consumer(rawValue: 1), Consumer(rawValue: 2)])
        #expect(prefetched)
        #expect(!s.contains(7))
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
        #expect(s._nextToStart() == 3)
        // Then it starts next, before the nearer prefetches
        let actions = s.finished(0, load: load(of: 0, in: s)!)
        #expect(started(actions) == [3])
        #expect(s.priority(of: 3) == .visible)
        s._checkInvariants()
    }

    @Test func withdrawingThePrefetchKeepsAConsumersLoad() {
        // The seeds' bug: a cancel after a cell attached its handler left the cell blank.
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .prefetch, priority: .prefetch)
        s.request(1, interest: .consumer(Consumer(rawValue: 1)), priority: .visible)
        let actions = s.release(1, interest: .prefetch)
        #expect(actions.isEmpty)
        #expect(s.phase(of: 1) != nil)
        let done = s.finished(1, load: load(of: 1, in: s)!)
        guard case .deliver(_, _, let consumers, let prefetched) = done.first else {
            Issue.record("expected a delivery, got \(done)")
            return
        }
        #expect(consumers == [Consumer(rawValue: 1)])
        #expect(!prefetched)
    }

    @Test func cancellationBeforeStartWhileRunningAndAfterCompletion() {
        var s = Scheduler(maxConcurrentLoads: 1)
        s.request(1, interest: .prefetch, priority: .prefetch)
        s.request(2, interest: .prefetch, priority: .prefetch)
        // Before start: a queued load that loses all interest never starts
        #expect(s.release(2, interest: .prefetch).isEmpty)
        #expect(!s.contains(2))
        // While running: cancel, slot freed at once, the next queued load starts
        s.request(3, interest: .prefetch, priority: .prefetch)
        let running = load(of: 1, in: s)!
        let actions = s.release(1, interest: .prefetch)
        #expect(cancelled(actions) == [1])
        #expect(started(actions) == [3])
        #expect(s.runningCount == 1)
        // The cancelled load's late finish is ignored
        #expect(s.finished(1, load: running).isEmpty)
        // After completion: a release is a no-op
        let l3 = load(of: 3, in: s)!
        _ = s.finished(3, load: l3)
        #expect(s.release(3, interest: .prefetch).isEmpty)
        // Unknown ids are no-ops
        #expect(s.release(42, interest: .consumer(Consumer(rawValue: 5))).isEmpty)
        #expect(s.setPriority(42, interest: .prefetch, priority: .visible).isEmpty)
        s._checkInvariants()
    }

    @Test func capHoldsUnderAStormOfPrefetchCancelAndRePrefetch() {
        var s = Scheduler(maxConcurrentLoads: 4)
        var running = Set<Int>()
        for round in 0..<50 {
            for id in 0..<40 {
                for a in s.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id))) {
                    if case .start(let i, _) = a { running.insert(i) }
                }
            }
            for id in stride(from: round % 3, to: 40, by: 2) {
                for a in s.release(id, interest: .prefetch) {
                    if case .start(let i, _) = a { running.insert(i) }
                    if case .cancel(let i, _) = a { running.remove(i) }
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
        #expect(cancelled(actions) == [1])
        #expect(started(actions) == [5])
        s._checkInvariants()
        // One by one, the same cancels would have started (and cancelled) 2, 3 and 4.
        var t = Scheduler(maxConcurrentLoads: 1)
        for id in 1...5 { t.request(id, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(id))) }
        let oneByOne = [1, 2, 3, 4].flatMap { t.release($0, interest: .prefetch) }
        #expect(started(oneByOne) == [2, 3, 4, 5])
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
        #expect(cancelled(actions) == [1])
        let abandoned = actions.flatMap { action -> [Consumer] in
            if case .abandon(_, let c) = action { c } else { [] }
        }
        #expect(Set(abandoned) == [Consumer(rawValue: 1), Consumer(rawValue: 2)])
        #expect(s.runningCount == 0 && s.waitingCount == 0)
        s._checkInvariants()
    }
}
