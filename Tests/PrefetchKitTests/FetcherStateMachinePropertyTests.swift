import Testing
@testable import PrefetchKit

/// The fetcher's whole state under random interleavings of every input: the scheduler, the
/// memory cache, consumers and reservations, workers and their task handles, statistics and the
/// latency window. Each step is checked against independent models: `SchedulingModel` for the
/// order of loads, an array for the LRU cache, plain dictionaries for the rest. Waiters and task
/// handles are plain tokens, so every resume and every cancel is visible. With caps 2 and 6 the
/// fetcher has a data store and prefetches draw destinations (`DestinationModel`); with 1 and 3 it
/// has none, and a store destination must act as memory.
@Suite struct FetcherStateMachinePropertyTests {
    /// Waiters and runners are tokens: a number per consumer, a number per task.
    typealias Machine = FetcherStateMachine<Int, String, Int, Int>

    /// An LRU cache written the plain way: an array, most recently used first.
    struct CacheModel {
        let countLimit: Int
        let costLimit: Int
        var entries: [(id: Int, value: String, cost: Int)] = []
        var evictions = 0

        var keys: [Int] { entries.map(\.id) }

        mutating func get(_ id: Int) -> String? {
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
            let entry = entries.remove(at: index)
            entries.insert(entry, at: 0)
            return entry.value
        }

        /// The documented rules: a negative cost is an error (nothing changes); a value costlier
        /// than the limit is refused (and drops the id's old value); otherwise the least recently
        /// used go until the limits hold.
        mutating func insert(_ id: Int, _ value: String, cost: Int) -> Bool {
            guard cost >= 0 else { return false }
            entries.removeAll { $0.id == id }
            guard cost <= costLimit else { return true }
            entries.insert((id, value, cost), at: 0)
            while entries.count > countLimit || entries.map(\.cost).reduce(0, +) > costLimit {
                entries.removeLast()
                evictions += 1
            }
            return true
        }
    }

    struct WorkerModel {
        /// The id of the load it runs, or ran last.
        var id: Int
        /// The load it runs, or ran last.
        var last: FetchLoadID
        /// The load it runs; `nil` once retired (its load was cancelled).
        var load: FetchLoadID?
        var runner: Int?
        var cancelPending = false
    }

    /// Everything the test knows, independently of the machine.
    struct Model {
        var scheduling: SchedulingModel
        var cache: CacheModel
        var destinations: DestinationModel
        var consumers: [FetchConsumerID: (id: Int, token: Int)] = [:]
        var reservations: [FetchConsumerID: (id: Int, cancelled: Bool)] = [:]
        var answered: [FetchConsumerID] = []
        var workers: [UInt64: WorkerModel] = [:]
        var unregistered: [Machine.WorkerID] = []
        var stats = FetchStatistics()
        /// The sum and count of the costs of the values seen (for a typical cost), and the most
        /// memory held after an input.
        var costTotal = 0, costCount = 0
        var peakMemory = 0
        /// The cache's costs plus a typical cost (the mean seen, rounded up) per running load.
        var memoryHeld: Int {
            let typical = costCount == 0 ? 0 : Int((Double(costTotal) / Double(costCount)).rounded(.up))
            return cache.entries.map(\.cost).reduce(0, +) + typical * scheduling.runningCount
        }
        /// Latency samples, oldest first; `cancelled` for a cancelled load's running time.
        var latencies: [(latency: Duration, cancelled: Bool)] = []
        var latencySamples: Int
        var isShutdown = false
        var seenConsumers = Set<FetchConsumerID>()
        var answers: [Int: Int] = [:]
        var tokens = 0
        /// How often the rarer paths ran, so a change that stops reaching them fails the test.
        var seen: [String: Int] = [:]

        mutating func saw(_ path: String) { seen[path, default: 0] += 1 }

        mutating func newToken() -> Int {
            tokens += 1
            return tokens
        }

        mutating func answer(_ token: Int) { answers[token, default: 0] += 1 }
    }

    static let ids = 16

    struct LoadFailed: Error {}

    @Test(arguments: [1, 2, 3, 6], preemptionModes)
    func randomInterleavingsOfEveryInputKeepTheWholeStateRight(cap: Int, preemption: FetchPreemption) throws {
        let seed = UInt64(0xFE7C4E5) &+ UInt64(cap)
        var draw = Draw(rng: SplitMix64(seed: seed))
        var configuration = FetcherConfiguration()
        configuration.preemption = preemption
        configuration.maxConcurrentLoads = cap
        configuration.cacheCountLimit = 5
        configuration.cacheCostLimit = 12
        configuration.latencySamples = 8
        let hasStore = cap % 2 == 0
        var machine = try Machine(configuration: configuration, observing: true, hasStore: hasStore)
        // The fetcher remembers only 3 stored ids here, so store prefetches keep finding work.
        machine.destinations = DestinationBook(hasStore: hasStore, knownLimit: 3)
        var m = Model(scheduling: SchedulingModel(cap: cap, preemption: preemption), cache: CacheModel(countLimit: 5, costLimit: 12),
                      destinations: DestinationModel(hasStore: hasStore, knownLimit: 3), latencySamples: 8)
        let steps = 10_000
        let shutdownStep = steps - steps / 20
        var step = 0
        var context: String { "seed \(seed) \(preemption) step \(step)" }

        /// Checks new workers against the loads the rule started (`expected`), and records them.
        func accept(_ spawns: [Machine.Spawn], expected: [(id: Int, load: FetchLoadID)], _ what: String) {
            let got = spawns.map { "\($0.load.id) as \($0.load.load)" }, want = expected.map { "\($0.id) as \($0.load)" }
            #expect(got == want, "\(context) \(what): started \(got), the rule says \(want)")
            for spawn in spawns where m.workers[spawn.worker.rawValue] == nil {
                m.workers[spawn.worker.rawValue] = WorkerModel(id: spawn.load.id, last: spawn.load.load, load: spawn.load.load)
                m.unregistered.append(spawn.worker)
                m.saw("spawn")
                m.stats.loadsStarted += 1
                m.stats.peakInFlight = max(m.stats.peakInFlight, m.scheduling.runningCount)
            }
        }

        /// Checks cancellations: the right loads, with the task handle when one is registered;
        /// the last `preempted` of them were pre-empted.
        func accept(_ cancellations: [Machine.Cancellation], cancelled expected: [(id: Int, load: FetchLoadID)], preempted: Int = 0, _ what: String) {
            #expect(cancellations.map(\.id) == expected.map(\.id), "\(context) \(what): cancelled \(cancellations.map(\.id)), expected \(expected.map(\.id))")
            m.stats.loadsPreempted += preempted
            if preempted > 0 { m.saw("preempt") }
            for (cancellation, load) in zip(cancellations, expected) {
                guard let key = m.workers.first(where: { $0.value.load == load.load })?.key else {
                    Issue.record("\(context): no worker ran \(load.load)")
                    continue
                }
                #expect(cancellation.runner == m.workers[key]!.runner, "\(context): the handle to cancel")
                m.saw(cancellation.runner == nil ? "cancel before registration" : "cancel")
                m.workers[key]!.load = nil
                m.destinations.retire(load.id, load.load)
                if m.workers[key]!.runner == nil { m.workers[key]!.cancelPending = true }
                m.stats.loadsCancelled += 1
            }
        }

        /// Checks what an event started and stopped against the rule: `cancelled` lost their last
        /// interest (the event says so); the pre-emptions and starts are what the model settles to.
        func settle(spawns: [Machine.Spawn], cancellations: [Machine.Cancellation], cancelled: [(id: Int, load: FetchLoadID)], _ what: String) {
            let rule = m.scheduling.settle()
            accept(cancellations, cancelled: cancelled + rule.preempted, preempted: rule.preempted.count, what)
            accept(spawns, expected: rule.started, what)
        }

        /// Removes an interest from the model; returns the load it cancels, if any.
        func remove(_ id: Int, _ interest: FetchInterest) -> (id: Int, load: FetchLoadID)? {
            if case .cancelled(let load) = m.scheduling.remove(id, interest) { return (id, load) }
            return nil
        }

        /// The common half of a request that reached the scheduler.
        func entered(_ id: Int, _ interest: FetchInterest, _ priority: FetchPriority, joined: Bool, spawn: Machine.Spawn?,
                     preempt: Machine.Cancellation?, _ what: String) {
            let expectedJoined = m.scheduling.isHeld(id)
            #expect(joined == expectedJoined, "\(context) \(what): joined")
            if expectedJoined { m.stats.coalescedRequests += 1 }
            m.scheduling.add(id, interest, priority)
            settle(spawns: spawn.map { [$0] } ?? [], cancellations: preempt.map { [$0] } ?? [], cancelled: [], what)
        }

        func newConsumer(_ consumer: FetchConsumerID) {
            #expect(m.seenConsumers.insert(consumer).inserted, "\(context): consumer \(consumer) reused")
        }

        for s in 0..<steps {
            step = s
            if step == shutdownStep {
                // Shut down: every running load is cancelled, every waiting consumer answered.
                let running = m.scheduling.runningIDs.sorted().map { (id: $0, load: m.scheduling.load(of: $0)!) }
                let action = machine.shutdown()
                let all = m.scheduling.removeAll()
                #expect(Set(action.cancel.map(\.id)) == Set(running.map(\.id)), "\(context): shutdown cancels")
                let order = action.cancel.map { c in running.first { $0.id == c.id }! }
                accept(action.cancel, cancelled: order, "shutdown")
                let tokens = all.consumers.map { m.consumers[$0]!.token }
                #expect(Set(action.abandon) == Set(tokens) && action.abandon.count == tokens.count, "\(context): shutdown answers")
                for token in action.abandon { m.answer(token) }
                for consumer in all.consumers { m.consumers[consumer] = nil; m.answered.append(consumer) }
                m.isShutdown = true
                m.destinations.storeOnly.removeAll()
                let again = machine.shutdown()
                #expect(again.cancel.isEmpty && again.abandon.isEmpty, "\(context): a second shutdown is a no-op")
            }
            let id = draw.below(Self.ids)
            switch draw.below(100) {
            case 0..<16:
                // fetchAsync with a completion handler.
                let token = m.newToken()
                let priority = draw.priority()
                let action = machine.request(id, waiter: token, priority: priority)
                if m.isShutdown {
                    guard case .refused(let error) = action, error.code == .shutdown, error.message.contains("\(id)") else {
                        Issue.record("\(context): expected a refusal naming \(id), got \(action)")
                        break
                    }
                    m.answer(token)
                    break
                }
                m.stats.requests += 1
                if let value = m.cache.get(id) {
                    m.stats.cacheHits += 1
                    guard case .hit(let hit) = action, hit == value else {
                        Issue.record("\(context): expected the cached \(value), got \(action)")
                        break
                    }
                    m.answer(token)
                    break
                }
                guard case .requested(let consumer, let joined, let spawn, let preempt, _) = action else {
                    Issue.record("\(context): expected a request, got \(action)")
                    break
                }
                newConsumer(consumer)
                m.consumers[consumer] = (id, token)
                entered(id, .consumer(consumer), priority, joined: joined, spawn: spawn, preempt: preempt, "request")
            case 16..<22:
                // value(for:), first step.
                let action = machine.reserve(id)
                if m.isShutdown {
                    guard case .refused = action else { Issue.record("\(context): expected a refusal, got \(action)"); break }
                    break
                }
                m.stats.requests += 1
                if let value = m.cache.get(id) {
                    m.stats.cacheHits += 1
                    guard case .hit(let hit) = action, hit == value else { Issue.record("\(context): expected \(value), got \(action)"); break }
                    break
                }
                guard case .reserved(let consumer) = action else { Issue.record("\(context): expected a reservation, got \(action)"); break }
                newConsumer(consumer)
                m.reservations[consumer] = (id, false)
            case 22..<28:
                // value(for:), second step: the continuation attaches.
                let reserved = m.reservations.keys.sorted()
                guard !reserved.isEmpty else { break }
                let consumer = reserved[draw.below(reserved.count)]
                let reservation = m.reservations[consumer]!
                let token = m.newToken()
                let priority = draw.priority()
                let action = machine.attach(consumer, for: reservation.id, waiter: token, priority: priority)
                m.reservations[consumer] = nil
                if reservation.cancelled {
                    guard case .cancelled = action else { Issue.record("\(context): expected the cancellation, got \(action)"); break }
                    m.saw("cancelled before attaching")
                    m.answer(token)
                    m.answered.append(consumer)
                    break
                }
                if m.isShutdown {
                    guard case .refused = action else { Issue.record("\(context): expected a refusal, got \(action)"); break }
                    m.answer(token)
                    m.answered.append(consumer)
                    break
                }
                if let value = m.cache.get(reservation.id) {
                    m.stats.cacheHits += 1
                    guard case .hit(let hit) = action, hit == value else { Issue.record("\(context): expected \(value), got \(action)"); break }
                    m.answer(token)
                    m.answered.append(consumer)
                    break
                }
                guard case .requested(let joined, let spawn, let preempt) = action else { Issue.record("\(context): expected a request, got \(action)"); break }
                m.consumers[consumer] = (reservation.id, token)
                entered(reservation.id, .consumer(consumer), priority, joined: joined, spawn: spawn, preempt: preempt, "attach")
            case 28..<38:
                // prefetch(ids): nearest first.
                let batch = (0..<(1 + draw.below(4))).map { _ in draw.below(Self.ids) }
                let priority = draw.priority()
                let destination: FetchDestination = draw.chance(40) ? .store : .memory
                let action = machine.prefetch(batch, priority: priority, destination: destination)
                if m.isShutdown {
                    #expect(action.rejected == batch && action.spawn.isEmpty, "\(context): rejected")
                    break
                }
                var hits: [Int] = [], requested: [(Int, Bool)] = [], spawns = action.spawn[...], cancels = action.cancel[...]
                var order = priority.order
                var stored: [Int] = []
                for b in batch {
                    m.stats.requests += 1
                    if m.cache.get(b) != nil {
                        m.stats.cacheHits += 1
                        hits.append(b)
                        continue
                    }
                    if m.destinations.isStored(b, destination) {
                        stored.append(b)
                        continue
                    }
                    let joined = m.scheduling.isHeld(b)
                    if joined { m.stats.coalescedRequests += 1 }
                    requested.append((b, joined))
                    m.scheduling.add(b, .prefetch, FetchPriority(level: priority.level, order: order))
                    order += 1
                    let rule = m.scheduling.settle()
                    let taken = Array(spawns.prefix(rule.started.count)), stopped = Array(cancels.prefix(rule.preempted.count))
                    spawns = spawns.dropFirst(rule.started.count)
                    cancels = cancels.dropFirst(rule.preempted.count)
                    accept(stopped, cancelled: rule.preempted, preempted: rule.preempted.count, "prefetch")
                    accept(taken, expected: rule.started, "prefetch")
                    m.destinations.set(b, destination)
                }
                if !stored.isEmpty {
                    // The store holds these already: their prefetch interest is withdrawn at the end.
                    m.saw("stored already")
                    let cancelled = stored.compactMap { remove($0, .prefetch) }
                    settle(spawns: Array(spawns), cancellations: Array(cancels), cancelled: cancelled, "prefetch stored")
                    (spawns, cancels) = ([][...], [][...])
                    m.destinations.storeOnly.subtract(stored)
                }
                #expect(spawns.isEmpty && cancels.isEmpty, "\(context): prefetch started or stopped too much")
                #expect(action.hits == hits, "\(context): prefetch hits")
                #expect(action.requested.map(\.id) == requested.map(\.0) && action.requested.map(\.joined) == requested.map(\.1), "\(context): prefetch requests")
            case 38..<46:
                // A controller's frame.
                let requests = (0..<draw.below(5)).map { _ in (draw.below(Self.ids), draw.priority()) }
                var cancelling = (0..<draw.below(4)).map { _ in draw.below(Self.ids) }
                let destinations: [FetchDestination] = draw.chance(50) ? requests.map { _ in draw.chance(40) ? .store : .memory } : []
                let action = machine.updatePrefetching(requests, destinations: destinations, cancelling: cancelling)
                if m.isShutdown {
                    #expect(action.rejected == requests.map(\.0) && action.spawn.isEmpty && action.cancel.isEmpty, "\(context): rejected")
                    break
                }
                var requested: [(Int, Bool)] = []
                var wanted: [(Int, FetchDestination)] = []
                for (index, (r, priority)) in requests.enumerated() where m.cache.get(r) == nil {
                    let destination = destinations.isEmpty ? .memory : destinations[index]
                    if m.destinations.isStored(r, destination) {
                        m.saw("stored already")
                        cancelling.append(r)
                        continue
                    }
                    wanted.append((r, destination))
                    if !m.scheduling.isPrefetched(r) {
                        m.stats.requests += 1
                        if m.scheduling.isHeld(r) { m.stats.coalescedRequests += 1 }
                        requested.append((r, m.scheduling.isHeld(r)))
                    }
                    m.scheduling.add(r, .prefetch, priority)
                }
                let cancelled = cancelling.compactMap { remove($0, .prefetch) }
                #expect(action.requested.map(\.id) == requested.map(\.0) && action.requested.map(\.joined) == requested.map(\.1), "\(context): update requests")
                settle(spawns: action.spawn, cancellations: action.cancel, cancelled: cancelled, "update")
                for (r, destination) in wanted { m.destinations.set(r, destination) }
                m.destinations.storeOnly.subtract(cancelling)
            case 46..<53:
                // cancelPrefetching(ids).
                let batch = (0..<(1 + draw.below(4))).map { _ in draw.below(Self.ids) }
                let action = machine.cancelPrefetching(batch)
                let cancelled = batch.compactMap { remove($0, .prefetch) }
                settle(spawns: action.spawn, cancellations: action.cancel, cancelled: cancelled, "cancel prefetching")
                m.destinations.storeOnly.subtract(batch)
            case 53..<61:
                // A consumer withdraws: waiting, reserved, or answered already (cell reuse after delivery).
                let pools = [m.consumers.keys.sorted(), m.reservations.keys.sorted(), m.answered]
                let pool = pools[draw.below(3)]
                guard !pool.isEmpty else { break }
                let consumer = pool[draw.below(pool.count)]
                let action = machine.withdraw(consumer)
                if let reservation = m.reservations[consumer] {
                    m.reservations[consumer] = (reservation.id, true)
                    guard case .none = action else { Issue.record("\(context): a reservation has no waiter yet, got \(action)"); break }
                } else if let waiting = m.consumers.removeValue(forKey: consumer) {
                    m.answered.append(consumer)
                    let cancelled = remove(waiting.id, .consumer(consumer))
                    guard case .withdrawn(let token, let cancellation, let spawn) = action, token == waiting.token else {
                        Issue.record("\(context): expected \(waiting.token) withdrawn, got \(action)")
                        break
                    }
                    m.answer(token)
                    settle(spawns: spawn.map { [$0] } ?? [], cancellations: cancellation.map { [$0] } ?? [],
                           cancelled: cancelled.map { [$0] } ?? [], "withdraw")
                } else {
                    guard case .none = action else { Issue.record("\(context): an answered consumer withdrew, got \(action)"); break }
                    m.saw("withdraw after the answer")
                }
            case 61..<73:
                // New workers' task handles are registered (most soon after the spawn, some late:
                // after their load was cancelled, or after they ended).
                for worker in m.unregistered where draw.chance(60) {
                    m.unregistered.removeAll { $0 == worker }
                    let runner = 1_000_000 + Int(worker.rawValue)
                    let cancelNow = machine.register(worker, runner: runner)
                    if let record = m.workers[worker.rawValue] {
                        #expect(cancelNow == record.cancelPending, "\(context): \(worker) registration")
                        if record.cancelPending { m.workers[worker.rawValue]!.cancelPending = false } else { m.workers[worker.rawValue]!.runner = runner }
                        m.saw(record.cancelPending ? "registered, cancel now" : "registered")
                    } else {
                        #expect(!cancelNow, "\(context): \(worker) ended, nothing to cancel")
                    }
                }
            case 73..<75:
                let jitter = machine.retrying()
                m.stats.retries += 1
                #expect((0..<1).contains(jitter), "\(context): jitter \(jitter)")
            case 75..<76:
                machine.cache.removeAll()
                m.cache.entries.removeAll()
            default:
                // A worker's load ends.
                let keys = m.workers.keys.sorted()
                guard !keys.isEmpty else { break }
                let key = keys[draw.below(keys.count)]
                let record = m.workers[key]!
                let worker = Machine.WorkerID(rawValue: key)
                let succeeds = !draw.chance(15)
                let cost = draw.chance(5) ? 13 : (draw.chance(3) ? -1 : draw.below(6))
                let latency = Duration.milliseconds(1 + draw.below(500))
                let fromStore = draw.chance(20), canContinue = draw.chance(70)
                let value = "v\(record.id)/\(record.last)/\(step)"
                let storeOnlyBefore = m.destinations.storeOnly.contains(record.id)
                let result: Result<String, any Error> = succeeds ? .success(value) : .failure(LoadFailed())
                let action = machine.finished(worker, Machine.RunningLoad(record.id, record.last), result: result,
                                              cost: succeeds ? cost : nil, latency: latency, fromStore: fromStore, canContinue: canContinue)
                // A value goes to the cache whether or not its load was cancelled meanwhile, unless
                // it was going to the store only.
                let consumers = record.load == nil ? [] : m.scheduling.finish(record.id)
                let storeOnly = m.destinations.finished(record.id, retiredLoad: record.load == nil ? record.last : nil,
                                                        consumers: consumers.count, succeeded: succeeds)
                if storeOnly { m.saw(record.load == nil ? "late store-only value" : "store-only value") }
                if !storeOnly, record.load != nil, storeOnlyBefore { m.saw("a consumer joined a store-only load") }
                let cacheRefusedCost = succeeds && !storeOnly && !m.cache.insert(record.id, value, cost: cost)
                if succeeds, cost >= 0 { (m.costTotal, m.costCount) = (m.costTotal + cost, m.costCount + 1) }
                guard record.load != nil else {
                    // A retired worker reports its cancelled load: nobody hears; the worker ends.
                    m.workers[key] = nil
                    guard case .late(let succeeded) = action, succeeded == succeeds else {
                        Issue.record("\(context): expected a late result, got \(action)")
                        break
                    }
                    if succeeds { m.stats.lateResults += 1 }
                    m.saw("late result")
                    break
                }
                guard case .delivered(let waiters, let cacheError, let next) = action else {
                    Issue.record("\(context): expected a delivery, got \(action)")
                    break
                }
                #expect((cacheError != nil) == cacheRefusedCost, "\(context): cache error")
                if waiters.count > 1 { m.saw("delivered to several") }
                if cacheRefusedCost { m.saw("cache error") }
                let tokens = consumers.map { m.consumers.removeValue(forKey: $0)!.token }
                m.answered += consumers
                var delivered: [Int] = []
                waiters.forEach { delivered.append($0) }
                #expect(delivered.sorted() == tokens.sorted(), "\(context): delivered to \(delivered), expected \(tokens)")
                for token in delivered { m.answer(token) }
                if succeeds {
                    m.stats.loadsCompleted += 1
                    if fromStore { m.stats.storeHits += 1 }
                    m.latencies.append((latency, cancelled: false))
                } else {
                    m.stats.loadsFailed += 1
                }
                let rule = m.scheduling.settle()
                #expect(rule.preempted.isEmpty, "\(context): the rule pre-empts \(rule.preempted) after a finish; the machine never does")
                let starts = rule.started.map(\.id)
                switch next {
                case .end:
                    #expect(starts.isEmpty, "\(context): a worker ended while \(starts) should start")
                    m.workers[key] = nil
                case .continue(let load):
                    #expect(canContinue && [load.id] == starts && [load.load] == rule.started.map(\.load),
                            "\(context): continued with \(load), expected \(rule.started)")
                    m.workers[key]!.id = load.id
                    m.workers[key]!.last = load.load
                    m.workers[key]!.load = load.load
                    m.stats.loadsStarted += 1
                    m.stats.peakInFlight = max(m.stats.peakInFlight, m.scheduling.runningCount)
                    m.saw("continue")
                case .spawn(let spawn):
                    m.saw("hand-over")
                    #expect(!canContinue, "\(context): a worker that can continue handed its next load over")
                    m.workers[key] = nil
                    accept([spawn], expected: rule.started, "hand-over")
                }
            }
            machine._checkInvariants()
            m.peakMemory = max(m.peakMemory, m.memoryHeld)
            let problems = Self.differences(machine, m)
            #expect(problems.isEmpty, "\(context): \(problems)")
        }
        // Drain: every retired worker reports; then every consumer has heard exactly once.
        for key in m.workers.keys.sorted() {
            let record = m.workers[key]!
            let action = machine.finished(Machine.WorkerID(rawValue: key), Machine.RunningLoad(record.id, record.last),
                                          result: .success("drained"), cost: 1, latency: .zero, fromStore: false, canContinue: true)
            guard case .late = action else { Issue.record("seed \(seed): after shutdown every load is late, got \(action)"); continue }
        }
        #expect(machine.workers.isEmpty && machine.workerOfLoad.isEmpty, "seed \(seed): workers left")
        #expect(m.answers.count == m.tokens, "seed \(seed): \(m.tokens - m.answers.count) waiters never heard")
        #expect(m.answers.values.allSatisfy { $0 == 1 }, "seed \(seed): a waiter heard twice")
        for path in ["spawn", "continue", "hand-over", "cancel", "cancel before registration", "registered",
                     "registered, cancel now", "late result", "withdraw after the answer", "cancelled before attaching",
                     "delivered to several", "cache error"] {
            #expect(m.seen[path, default: 0] >= 5, "seed \(seed): the path '\(path)' ran \(m.seen[path, default: 0]) times")
        }
        #expect(m.stats.loadsCompleted > 200 && m.stats.coalescedRequests > 200 && m.cache.evictions > 100, "seed \(seed): \(m.stats)")
        if hasStore {
            for path in ["store-only value", "late store-only value", "a consumer joined a store-only load", "stored already"] {
                #expect(m.seen[path, default: 0] >= 5, "seed \(seed): the path '\(path)' ran \(m.seen[path, default: 0]) times")
            }
        } else {
            #expect(machine.destinations.storeOnlyLoads == 0, "seed \(seed): a fetcher without a store kept values out of memory")
        }
        if preemption.isEnabled {
            #expect(m.seen["preempt", default: 0] >= 20, "seed \(seed) \(preemption): \(m.seen["preempt", default: 0]) events pre-empted")
        } else {
            #expect(m.stats.loadsPreempted == 0, "seed \(seed): pre-empted without pre-emption")
        }
    }

    /// The differences between everything observable in the machine and the model.
    static func differences(_ machine: Machine, _ m: Model) -> [String] {
        // A copy: reading the latency window works out (and keeps) its percentiles.
        var machine = machine
        var problems = m.scheduling.differences(from: machine.scheduler, idCount: ids)
        let stats = machine.statistics
        var expected = m.stats
        expected.inFlight = m.scheduling.runningCount
        expected.queued = m.scheduling.waitingCount
        let kept = m.latencies.suffix(m.latencySamples)
        expected.latency = LatencySummary(samples: kept.filter { !$0.cancelled }.map(\.latency))
        expected.memoryHeld = m.memoryHeld
        expected.peakMemoryHeld = m.peakMemory
        if stats != expected { problems.append("statistics \(stats), model \(expected)") }
        let p90 = kept.count >= 5 ? Self.redistributedQuantile(Array(kept), 0.9) : nil
        if machine.latency.expected != p90 { problems.append("expected latency \(String(describing: machine.latency.expected)), model \(String(describing: p90))") }
        if machine.cache.keysByRecency != m.cache.keys { problems.append("cache \(machine.cache.keysByRecency), model \(m.cache.keys)") }
        if machine.cache.evictions != m.cache.evictions { problems.append("evictions \(machine.cache.evictions), model \(m.cache.evictions)") }
        for entry in m.cache.entries where machine.cache.peek(forKey: entry.id) != entry.value {
            problems.append("cached value of \(entry.id)")
        }
        if Set(machine.consumers.keys) != Set(m.consumers.keys) { problems.append("consumers") }
        if machine.reservations != m.reservations.mapValues(\.cancelled) { problems.append("reservations \(machine.reservations)") }
        if machine.workers.count != m.workers.count { problems.append("workers \(machine.workers.count), model \(m.workers.count)") }
        problems += m.destinations.differences(from: machine.destinations)
        for (key, worker) in m.workers {
            let record = machine.workers[Machine.WorkerID(rawValue: key)]
            if record?.load != worker.load || record?.runner != worker.runner || record?.cancelPending != worker.cancelPending {
                problems.append("worker W\(key)")
            }
        }
        return problems
    }
}

extension FetcherStateMachinePropertyTests {
    /// The model's latency quantile, by Efron's redistribution to the right (an independent
    /// formulation of the product-limit estimate): every sample starts with mass 1/n; a cancelled
    /// load's mass goes in equal parts to every sample after it. The quantile is the first finished
    /// sample where the mass so far reaches `fraction`, else the longest sample.
    static func redistributedQuantile(_ samples: [(latency: Duration, cancelled: Bool)], _ fraction: Double) -> Duration {
        let sorted = samples.sorted { $0.latency != $1.latency ? $0.latency < $1.latency : (!$0.cancelled && $1.cancelled) }
        var mass = Array(repeating: 1.0 / Double(sorted.count), count: sorted.count)
        for i in sorted.indices where sorted[i].cancelled {
            let after = sorted.count - i - 1
            if after > 0 { for j in (i + 1)..<sorted.count { mass[j] += mass[i] / Double(after) } }
            mass[i] = 0
        }
        var total = 0.0
        for i in sorted.indices where !sorted[i].cancelled {
            total += mass[i]
            if total >= fraction - 1e-9 { return sorted[i].latency }
        }
        return sorted[sorted.count - 1].latency
    }
}
