import Testing
@testable import PrefetchKit

/// Random interleavings of every event against a model of what the scheduler must guarantee.
@Suite struct FetchSchedulerPropertyTests {
    private typealias Scheduler = FetchScheduler<Int>

    /// What the test knows independently of the scheduler.
    private struct Model {
        var interests: [Int: [Scheduler.Interest: FetchPriority]] = [:]
        var sequence: [Int: Int] = [:]
        var nextSequence = 0
        var running: [Scheduler.LoadID: Int] = [:]
        var answered: [Scheduler.ConsumerID: Int] = [:]
        var live: Set<Scheduler.ConsumerID> = []
    }

    @Test(arguments: [1, 2, 3, 6])
    func randomInterleavingsKeepEveryPromise(cap: Int) {
        let seed = UInt64(0xC0FFEE) &+ UInt64(cap)
        var rng = SplitMix64(seed: seed)
        var s = Scheduler(maxConcurrentLoads: cap)
        var m = Model()
        var nextConsumer: UInt64 = 0
        let steps = 10_000

        func apply(_ actions: [Scheduler.Action], step: Int) {
            for action in actions {
                switch action {
                case .start(let id, let load):
                    #expect(m.interests[id]?.isEmpty == false, "seed \(seed) step \(step): \(id) started without an interest")
                    // The started id has the highest priority among those waiting (ties: earliest request).
                    m.running[load] = id
                case .cancel(let id, let load):
                    #expect(m.running.removeValue(forKey: load) == id, "seed \(seed) step \(step): cancelled a load that was not running")
                    #expect(m.interests[id] == nil, "seed \(seed) step \(step): cancelled \(id) that still had interests")
                case .deliver(let id, let load, let consumers, _):
                    #expect(m.running.removeValue(forKey: load) == id)
                    let expected = Set((m.interests[id] ?? [:]).keys.compactMap { if case .consumer(let c) = $0 { c } else { nil } })
                    #expect(Set(consumers) == expected, "seed \(seed) step \(step): delivered to the wrong consumers")
                    for c in consumers {
                        m.answered[c, default: 0] += 1
                        m.live.remove(c)
                    }
                    m.interests[id] = nil
                case .abandon:
                    Issue.record("seed \(seed): abandon outside cancelAll")
                }
            }
        }

        for step in 0..<steps {
            let id = Int(rng.next() % 24)
            let roll = rng.next() % 100
            let expectedNext = s._nextToStart()
            let freeSlot = s.runningCount < cap
            var actions: [Scheduler.Action] = []
            switch roll {
            case 0..<30:
                let priority = FetchPriority(level: rng.next() % 4 == 0 ? .visible : .prefetch, order: Double(rng.next() % 10))
                let interest: Scheduler.Interest
                if rng.next() % 2 == 0 {
                    interest = .prefetch
                } else {
                    nextConsumer += 1
                    let c = Scheduler.ConsumerID(rawValue: nextConsumer)
                    m.live.insert(c)
                    interest = .consumer(c)
                }
                if m.interests[id] == nil { m.sequence[id] = m.nextSequence; m.nextSequence += 1 }
                m.interests[id, default: [:]][interest] = priority
                actions = s.request(id, interest: interest, priority: priority)
            case 30..<55:
                let held = m.interests[id].map { Array($0.keys) } ?? []
                let interest = held.isEmpty ? Scheduler.Interest.prefetch : held[Int(rng.next() % UInt64(held.count))]
                if case .consumer(let c) = interest { m.live.remove(c) }
                m.interests[id]?[interest] = nil
                if m.interests[id]?.isEmpty == true { m.interests[id] = nil }
                actions = s.release(id, interest: interest)
            case 55..<60:
                // Cancel a batch of prefetches at once.
                let batch = (0..<4).map { _ in Int(rng.next() % 24) }
                for b in Set(batch) where m.interests[b]?[.prefetch] != nil {
                    m.interests[b]?[.prefetch] = nil
                    if m.interests[b]?.isEmpty == true { m.interests[b] = nil }
                }
                actions = s.release(batch, interest: .prefetch)
            case 60..<65:
                if let held = m.interests[id], let interest = held.keys.first {
                    let priority = FetchPriority(level: .prefetch, order: Double(rng.next() % 10))
                    m.interests[id]?[interest] = priority
                    actions = s.setPriority(id, interest: interest, priority: priority)
                }
            default:
                if let (load, runningID) = m.running.randomElement(using: &rng) {
                    actions = s.finished(runningID, load: load)
                }
            }
            let startedIDs = actions.compactMap { if case .start(let i, _) = $0 { i } else { nil } }
            if roll < 30, freeSlot, !startedIDs.isEmpty {
                #expect(startedIDs == [id], "seed \(seed) step \(step): a request with a free slot starts its own id")
            } else if roll >= 30, !(55..<60).contains(roll), let first = startedIDs.first, let expectedNext {
                #expect(first == expectedNext, "seed \(seed) step \(step): started \(first), queue order wanted \(expectedNext)")
            }
            apply(actions, step: step)
            s._checkInvariants()
            #expect(s.runningCount <= cap, "seed \(seed) step \(step): cap exceeded")
            #expect(m.running.count == s.runningCount, "seed \(seed) step \(step): model and scheduler disagree on running loads")
            #expect(m.answered.values.allSatisfy { $0 == 1 }, "seed \(seed) step \(step): a consumer heard twice")
            for (load, runningID) in m.running {
                #expect(m.interests[runningID]?.isEmpty == false, "seed \(seed) step \(step): \(load) runs without an interest")
            }
        }
        // Drain: every live consumer is answered exactly once.
        while let (load, id) = m.running.first {
            apply(s.finished(id, load: load), step: steps)
        }
        #expect(m.live.isEmpty, "seed \(seed): \(m.live.count) consumers never heard")
        #expect(m.answered.values.allSatisfy { $0 == 1 })
    }
}
