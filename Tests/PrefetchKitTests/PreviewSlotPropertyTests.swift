import Testing
@testable import PrefetchKit

/// The fetcher's state machine with a loader that brings previews, under random interleavings of
/// every input: requests with a completion handler at either quality (some watching for a preview
/// on the way to the full value), `value(for:)`'s reserve and attach, prefetches, controller
/// frames and prefetch cancellations at either quality, consumers withdrawing, task handles
/// registered, the cache cleared, and workers whose loads end: a preview load's loader returning
/// its preview (upgraded or not) or the full value it had at hand, a full load's loader reporting
/// its preview on the way, failures, late results of cancelled loads and late previews.
///
/// Values carry their own quality and id (`"P03#17"`, `"F03#18"`), so every answer, every preview
/// shown and every cached value is checked against what it may be. After every step the test
/// checks the promises of the article "Previews first" against its own record of workers and
/// consumers: one load per id; no more loads than `maxConcurrentLoads + previewSlots`; no more
/// loads completing full values (their preview in, or any full value's until previews arrive on
/// the way) than `maxConcurrentLoads`; no slot idle while a load that may take it waits; a full
/// request upgrades the load of its id; every consumer answered at most once, a full-quality one
/// only with a full value, a withdrawn one never again; a preview shown at most once, before the
/// answer, only to a consumer that watches for it; a cached preview never answers a request for
/// the full value, and never replaces a cached full value. Half way, the loads are drained: every
/// consumer must then have heard and nothing may wait. Near the end the fetcher shuts down: nothing
/// starts after it, and every load it cancelled reports late.
@Suite struct PreviewSlotPropertyTests {
    /// Waiters and runners are tokens: a number per consumer, a number per task.
    typealias Machine = FetcherStateMachine<Int, String, Int, Int>

    static let ids = 20
    /// Half the draws pick one of the first few ids, so loads are joined and upgraded often.
    static let hotIDs = 6
    static let cacheCountLimit = 6
    static let cacheCostLimit = 12
    static let steps = 3_000

    struct LoadFailed: Error {}

    /// Slots `(cap, previews)` and pre-emption modes.
    static let arguments: [(cap: Int, previews: Int, preemption: FetchPreemption)] =
        [(1, 0), (1, 1), (2, 6), (6, 1)].flatMap { slots in preemptionModes.map { (slots.0, slots.1, $0) } }

    @Test(arguments: arguments)
    func randomInterleavingsWithPreviewsKeepTheirPromises(_ arguments: (cap: Int, previews: Int, preemption: FetchPreemption)) throws {
        try Self.run(cap: arguments.cap, previewSlots: arguments.previews, preemption: arguments.preemption)
    }

    /// Found by the test above (seed 0x9E5F10E5, cap 1, no preview slots, an order margin): a
    /// running load that only the prefetch holds, protected by "previews first" against a waiting
    /// id of its level that has a preview, kept its slot when its own preview arrived, though the
    /// waiting id now outranked it by the margin (`notePreview(_:)` pre-empted only with preview
    /// slots).
    @Test func aLoadWhosePreviewArrivesLosesThePreviewsFirstProtection() throws {
        var scheduler = FetchScheduler<Int>(maxConcurrentLoads: 1, previewSlots: 0, preemption: .withinLevels(orderMargin: 1.5))
        #expect(scheduler.request(1, interest: .prefetch, priority: FetchPriority(level: .visible, order: 7)).start?.id == 1)
        #expect(scheduler.request(2, interest: .prefetch, priority: FetchPriority(level: .visible, order: 4), hasPreview: true).start == nil,
                "previews first: 1 has none, so 2 waits")
        let noted = scheduler.notePreview(1)
        let action = try #require(noted)
        #expect(action.preempt.map(\.id) == [1])
        #expect(action.start.map(\.id) == [2])
        scheduler._checkInvariants()
    }

    static func run(cap: Int, previewSlots: Int, preemption: FetchPreemption) throws {
        let seed = UInt64(0x9E5F_10D5) &+ UInt64(cap * 16 + previewSlots)
        var run = try Run(cap: cap, previewSlots: previewSlots, preemption: preemption, seed: seed)
        let drainStep = steps / 2, shutdownStep = steps - steps / 20
        for step in 0..<steps {
            run.step = step
            if step == drainStep { run.drain() }
            if step == shutdownStep { run.shutDown() }
            run.randomStep()
            run.check()
        }
        run.end()
        run.expectRarePathsReached()
    }
}

extension PreviewSlotPropertyTests {
    /// A consumer waiting for its answer.
    struct Consumer {
        var id: Int
        var token: Int
        var quality: FetchQuality
        /// It asked for the full value and to be shown a preview on the way.
        var watches: Bool
    }

    /// What one waiter (a completion handler or a continuation) heard.
    struct Waiter {
        var id: Int
        var quality: FetchQuality
        var watches: Bool
        var completions = 0
        var previewsShown = 0
    }

    /// A `value(for:)` consumer reserved, not attached yet.
    struct Reservation {
        var id: Int
        var quality: FetchQuality
        var cancelled = false
    }

    /// A worker and the load it runs (or ran, once retired).
    struct Worker {
        var id: Int
        var load: FetchLoadID
        /// `false` once the load was cancelled or pre-empted: the worker only reports late.
        var running = true
        /// The quality its loader was asked for (the load's target when it started; `full` after an upgrade).
        var quality: FetchQuality
        /// A preview of the id existed when the load started.
        var previewAtStart: Bool
        /// The load delivered its preview (on the way, or as an upgraded preview load).
        var previewIn = false
        var runner: Int?
        var cancelPending = false

        init(id: Int, load: FetchLoadID, quality: FetchQuality, previewAtStart: Bool, runner: Int? = nil) {
            self.id = id
            self.load = load
            self.quality = quality
            self.previewAtStart = previewAtStart
            self.runner = runner
        }
    }

    /// The machine under test and everything the test knows about it.
    struct Run {
        let cap: Int
        let previewSlots: Int
        let preemption: FetchPreemption
        let seed: UInt64
        var machine: Machine
        var draw: Draw
        var step = 0
        var phase = "random"
        var consumers: [FetchConsumerID: Consumer] = [:]
        var reservations: [FetchConsumerID: Reservation] = [:]
        /// Consumers answered or withdrawn (a cell may still withdraw them).
        var answered: [FetchConsumerID] = []
        var seenConsumers = Set<FetchConsumerID>()
        var waiters: [Int: Waiter] = [:]
        var workers: [UInt64: Worker] = [:]
        var unregistered: [Machine.WorkerID] = []
        /// A full load's loader reported a preview on the way (with preview slots): full values'
        /// first bytes may take preview slots from then on.
        var firstBytes = false
        var isShutdown = false
        var startedAtShutdown = 0
        /// The cache's values after the previous step, by id.
        var cacheBefore: [Int: String] = [:]
        var tokens = 0
        var values = 0
        var peakRunning = 0
        /// How often the rarer paths ran, so a change that stops reaching them fails the test.
        var seen: [String: Int] = [:]

        init(cap: Int, previewSlots: Int, preemption: FetchPreemption, seed: UInt64) throws {
            self.cap = cap
            self.previewSlots = previewSlots
            self.preemption = preemption
            self.seed = seed
            var configuration = FetcherConfiguration()
            configuration.maxConcurrentLoads = cap
            configuration.previewSlots = previewSlots
            configuration.preemption = preemption
            configuration.cacheCountLimit = PreviewSlotPropertyTests.cacheCountLimit
            configuration.cacheCostLimit = PreviewSlotPropertyTests.cacheCostLimit
            machine = try Machine(configuration: configuration, observing: true, previews: true)
            draw = Draw(rng: SplitMix64(seed: seed))
        }

        var context: String { "seed \(seed) cap \(cap) previewSlots \(previewSlots) \(preemption) step \(step) (\(phase))" }

        mutating func saw(_ path: String) { seen[path, default: 0] += 1 }

        // MARK: Draws and values

        /// Now and then an id loading now (a cell asks again for what is on its way), else half the
        /// time a hot id, else any.
        mutating func drawID() -> Int {
            if draw.chance(15) {
                let loading = workers.values.filter(\.running).map(\.id).sorted()
                if !loading.isEmpty { return loading[draw.below(loading.count)] }
            }
            return draw.chance(50) ? draw.below(PreviewSlotPropertyTests.hotIDs) : draw.below(PreviewSlotPropertyTests.ids)
        }

        mutating func drawQuality() -> FetchQuality { draw.chance(45) ? .preview : .full }

        /// Mostly small costs; now and then one over the cache's limit, or a negative one (an error).
        mutating func drawCost() -> Int {
            if draw.chance(2) { return PreviewSlotPropertyTests.cacheCostLimit + 1 }
            if draw.chance(2) { return -1 }
            return draw.below(4)
        }

        /// A new value of `id` at `quality`, tagged with both: `"P03#17"`, `"F03#18"`.
        mutating func newValue(_ id: Int, _ quality: FetchQuality) -> String {
            values += 1
            return "\(quality == .full ? "F" : "P")\(id < 10 ? "0" : "")\(id)#\(values)"
        }

        /// The quality and id a value carries.
        static func tag(_ value: String) -> (quality: FetchQuality, id: Int)? {
            var bytes = value.utf8.makeIterator()
            guard let mark = bytes.next(), let tens = bytes.next(), let ones = bytes.next(), bytes.next() == UInt8(ascii: "#"),
                  (48...57).contains(tens), (48...57).contains(ones) else { return nil }
            let id = Int(tens - 48) * 10 + Int(ones - 48)
            switch mark {
            case UInt8(ascii: "F"): return (.full, id)
            case UInt8(ascii: "P"): return (.preview, id)
            default: return nil
            }
        }

        /// The quality of the value the cache held for `id` after the previous step.
        func heldBefore(_ id: Int) -> FetchQuality? { cacheBefore[id].flatMap { Self.tag($0)?.quality } }

        /// Whether what the cache holds for `id` answers a request at `quality`.
        func cacheAnswers(_ id: Int, _ quality: FetchQuality) -> Bool {
            guard let held = machine.cache.peek(forKey: id).flatMap({ Self.tag($0)?.quality }) else { return false }
            return held >= quality
        }

        mutating func newWaiter(_ id: Int, _ quality: FetchQuality, watches: Bool) -> Int {
            tokens += 1
            waiters[tokens] = Waiter(id: id, quality: quality, watches: watches)
            return tokens
        }

        mutating func newConsumer(_ consumer: FetchConsumerID) {
            require(seenConsumers.insert(consumer).inserted, "\(context): consumer \(consumer) reused")
        }

        // MARK: What waiters hear

        /// A value answers a request for `id` at `quality`: the right item, at least that quality.
        func checkAnswer(_ value: String, id: Int, quality: FetchQuality, _ what: String) {
            guard let tag = Self.tag(value) else {
                Issue.record("\(context) \(what): \(value) is no value of the test")
                return
            }
            require(tag.id == id, "\(context) \(what): \(value) answers a request for \(id)")
            require(tag.quality >= quality, "\(context) \(what): a request for the \(quality) value was answered with \(value)")
        }

        mutating func complete(_ token: Int, _ result: Result<String, any Error>, _ what: String) {
            guard var waiter = waiters[token] else {
                Issue.record("\(context) \(what): unknown waiter \(token)")
                return
            }
            waiter.completions += 1
            require(waiter.completions == 1, "\(context) \(what): waiter \(token) answered \(waiter.completions) times")
            if case .success(let value) = result {
                checkAnswer(value, id: waiter.id, quality: waiter.quality, what)
                if waiter.previewsShown > 0, Self.tag(value)?.quality == .full { saw("a preview shown, then the full value") }
                if waiter.quality == .preview, Self.tag(value)?.quality == .preview { saw("a preview answers a preview request") }
            }
            waiters[token] = waiter
        }

        mutating func show(_ token: Int, _ value: String, _ what: String) {
            guard var waiter = waiters[token] else {
                Issue.record("\(context) \(what): unknown waiter \(token) shown \(value)")
                return
            }
            require(waiter.watches, "\(context) \(what): waiter \(token) (\(waiter.quality), not watching) shown \(value)")
            require(waiter.completions == 0, "\(context) \(what): waiter \(token) shown \(value) after its answer")
            require(waiter.previewsShown == 0, "\(context) \(what): waiter \(token) shown a second preview \(value)")
            let tag = Self.tag(value)
            require(tag?.id == waiter.id && tag?.quality == .preview, "\(context) \(what): waiter of \(waiter.id) shown \(value) as a preview")
            waiter.previewsShown += 1
            waiters[token] = waiter
        }

        // MARK: Workers

        /// Records new workers; a load reads its target quality when it starts, as a worker does.
        mutating func spawned(_ spawns: [Machine.Spawn], _ what: String) {
            for spawn in spawns {
                require(!isShutdown, "\(context) \(what): \(spawn.load.id) started after shutdown")
                let key = spawn.worker.rawValue
                require(workers[key] == nil, "\(context) \(what): \(spawn.worker) reused")
                let id = spawn.load.id
                let worker = Worker(id: id, load: spawn.load.load, quality: machine.targetQuality(of: id),
                                    previewAtStart: machine.scheduler.entries[id]?.hasPreview ?? false)
                workers[key] = worker
                unregistered.append(spawn.worker)
                noteStart(worker)
            }
        }

        mutating func noteStart(_ worker: Worker) {
            saw(worker.quality == .preview ? "a preview load starts" : "a full load starts")
            if worker.quality == .full, firstBytes, !worker.previewAtStart { saw("a full value's first bytes start") }
        }

        /// Retires the workers of cancelled or pre-empted loads, with the task handle when one is registered.
        mutating func cancelled(_ cancellations: [Machine.Cancellation], _ what: String) {
            for cancellation in cancellations {
                // The machine retired it (its record has no load); a spawn of the same id in the
                // same action may run beside it in the record for a moment.
                let candidates = workers.filter { key, worker in
                    worker.running && worker.id == cancellation.id && machine.workers[Machine.WorkerID(rawValue: key)]?.load == nil
                }.keys.sorted()
                guard let key = candidates.first(where: { workers[$0]!.runner == cancellation.runner }) ?? candidates.first else {
                    Issue.record("\(context) \(what): cancelled a load of \(cancellation.id), which does not run")
                    continue
                }
                require(cancellation.runner == workers[key]!.runner, "\(context) \(what): the handle to cancel for \(cancellation.id)")
                workers[key]!.running = false
                if workers[key]!.runner == nil { workers[key]!.cancelPending = true }
                saw("cancel")
            }
        }

        /// The consumers waiting for `id`.
        func consumers(of id: Int) -> [(key: FetchConsumerID, value: Consumer)] {
            consumers.filter { $0.value.id == id }.sorted { $0.key < $1.key }
        }

        /// A preview was delivered: it is shown to the consumers watching for one and answers those
        /// that asked for a preview; then the loads the delivery cancels, stops and starts.
        mutating func perform(_ action: Machine.PreviewAction, preview: String, of id: Int, cost: Int, _ what: String) {
            var shown: [Int] = [], answeredTokens: [Int] = []
            action.watchers.forEach { shown.append($0) }
            action.answered.forEach { answeredTokens.append($0) }
            let waiting = consumers(of: id)
            let watching = waiting.filter { $0.value.quality == .full && $0.value.watches && waiters[$0.value.token]!.previewsShown == 0 }
            let satisfied = waiting.filter { $0.value.quality == .preview }
            require(shown.sorted() == watching.map(\.value.token).sorted(),
                    "\(context) \(what): \(id)'s preview shown to \(shown), watching: \(watching.map(\.value.token))")
            require(answeredTokens.sorted() == satisfied.map(\.value.token).sorted(),
                    "\(context) \(what): \(id)'s preview answered \(answeredTokens), asking for a preview: \(satisfied.map(\.value.token))")
            for token in shown { show(token, preview, what) }
            for token in answeredTokens { complete(token, .success(preview), what) }
            for (consumer, _) in satisfied {
                consumers[consumer] = nil
                answered.append(consumer)
            }
            if !shown.isEmpty { saw("a preview shown on the way") }
            spawned(action.respawn + (action.spawn.map { [$0] } ?? []), what)
            cancelled(action.stopped + (action.cancel.map { [$0] } ?? []), what)
            if action.stopped.contains(where: { $0.id == id }) { saw("a load yields its slot after its preview") }
            if action.cancel?.id == id { saw("a preview answers the last interest: the load stops") }
            // The preview is cached, unless the full value is.
            if heldBefore(id) == .full {
                require(machine.cache.peek(forKey: id) == cacheBefore[id], "\(context) \(what): \(preview) replaced a cached full value")
                saw("a preview arrives for a cached full value")
            } else if (0...PreviewSlotPropertyTests.cacheCostLimit).contains(cost) {
                require(machine.cache.peek(forKey: id) == preview, "\(context) \(what): \(id)'s preview \(preview) was not cached")
            }
        }

        /// A worker's loader reports: a preview load's loader returns (its preview, or the full value
        /// it had at hand), a full load's loader reports its preview on the way or returns, or the
        /// loader fails; a retired worker's loader reports late. `draining`: the loads succeed.
        mutating func progress(_ key: UInt64, draining: Bool = false) {
            let worker = workers[key]!
            let load = Machine.RunningLoad(worker.id, worker.load)
            if !worker.running {
                if worker.quality == .full, !draining, draw.chance(25) {
                    // Its loader was still going: its preview arrives late, and is ignored.
                    let action = machine.previewArrived(load, value: newValue(worker.id, .preview), cost: 1, onTheWay: true)
                    require(action.watchers.count == 0 && action.answered.count == 0 && action.cancel == nil && action.spawn == nil
                            && action.stopped.isEmpty && action.respawn.isEmpty, "\(context): a cancelled load's preview did something")
                    saw("a cancelled load's preview is ignored")
                    return
                }
                let succeeds = draining || draw.chance(70)
                let value = newValue(worker.id, worker.quality)
                if worker.quality == .preview, succeeds {
                    require(machine.previewLoadEnded(load, value: value, cost: 1) == nil, "\(context): a cancelled preview load was upgraded")
                }
                finish(key, succeeds ? .success(value) : .failure(LoadFailed()), quality: worker.quality, cost: draining ? 1 : drawCost())
                return
            }
            switch worker.quality {
            case .preview:
                let roll = draining ? 0 : draw.below(100)
                if roll < 75 {
                    // The loader returns the preview: the load ends, or, upgraded, goes on at full quality.
                    let preview = newValue(worker.id, .preview)
                    let cost = draining ? 1 : drawCost()
                    let upgraded = machine.scheduler.targetQuality(of: worker.id) == .full
                    if let action = machine.previewLoadEnded(load, value: preview, cost: cost) {
                        require(upgraded, "\(context): \(worker.id)'s preview load went on though nobody wants the full value")
                        saw("a preview load in flight is upgraded")
                        workers[key]!.quality = .full
                        workers[key]!.previewIn = true
                        perform(action, preview: preview, of: worker.id, cost: cost, "upgraded preview load")
                    } else {
                        require(!upgraded, "\(context): \(worker.id)'s preview load ended though a full value is wanted")
                        finish(key, .success(preview), quality: .preview, cost: cost)
                    }
                } else if roll < 90 {
                    // The loader had the full value at hand (`FetchLoadContext.recordFullQuality()`).
                    saw("a preview load brings the full value")
                    finish(key, .success(newValue(worker.id, .full)), quality: .full, cost: drawCost())
                } else {
                    finish(key, .failure(LoadFailed()), quality: .preview, cost: 0)
                }
            case .full:
                if !draining, !worker.previewIn, draw.chance(30) {
                    // A progressive prefix: the loader reports the preview on its way to the full value.
                    let preview = newValue(worker.id, .preview)
                    let cost = drawCost()
                    let opens = previewSlots > 0 && !firstBytes
                    let action = machine.previewArrived(load, value: preview, cost: cost, onTheWay: true)
                    if opens {
                        firstBytes = true
                        saw("previews are seen on the way")
                    }
                    workers[key]!.previewIn = true
                    saw("a preview arrives on the way")
                    perform(action, preview: preview, of: worker.id, cost: cost, "preview on the way")
                } else if draining || draw.chance(85) {
                    finish(key, .success(newValue(worker.id, .full)), quality: .full, cost: draining ? 1 : drawCost())
                } else {
                    finish(key, .failure(LoadFailed()), quality: .full, cost: 0)
                }
            }
        }

        /// The worker's load ended with `result`: delivered to every consumer of its id, or, once
        /// cancelled, late; then the worker takes the next load, hands it over, or ends.
        mutating func finish(_ key: UInt64, _ result: Result<String, any Error>, quality: FetchQuality, cost: Int) {
            let worker = workers[key]!
            let canContinue = draw.chance(70)
            let value: String? = if case .success(let value) = result { value } else { nil }
            let action = machine.finished(Machine.WorkerID(rawValue: key), Machine.RunningLoad(worker.id, worker.load), result: result,
                                          quality: quality, cost: value == nil ? nil : cost, latency: .milliseconds(1 + draw.below(300)),
                                          fromStore: false, canContinue: canContinue)
            // What the cache holds now: a full value replaces anything; a preview anything but a full value.
            if let value, (0...PreviewSlotPropertyTests.cacheCostLimit).contains(cost) {
                if quality == .preview, heldBefore(worker.id) == .full {
                    require(machine.cache.peek(forKey: worker.id) == cacheBefore[worker.id], "\(context): \(value) replaced a cached full value")
                    saw("a preview arrives for a cached full value")
                } else {
                    require(machine.cache.peek(forKey: worker.id) == value, "\(context): \(value) was not cached")
                }
            }
            guard worker.running else {
                guard case .late(let succeeded) = action, succeeded == (value != nil) else {
                    Issue.record("\(context): \(worker.id)'s cancelled load reported \(action)")
                    return
                }
                workers[key] = nil
                saw("late result")
                return
            }
            guard case .delivered(let delivered, let cacheError, let next) = action else {
                Issue.record("\(context): \(worker.id)'s load reported \(action)")
                return
            }
            let expectsError = value != nil && cost < 0 && !(quality == .preview && heldBefore(worker.id) == .full)
            require((cacheError != nil) == expectsError, "\(context): cache error \(String(describing: cacheError))")
            var tokens: [Int] = []
            delivered.forEach { tokens.append($0) }
            let waiting = consumers(of: worker.id)
            require(tokens.sorted() == waiting.map(\.value.token).sorted(),
                    "\(context): \(worker.id)'s load answered \(tokens.sorted()), waiting: \(waiting.map(\.value.token).sorted())")
            for token in tokens { complete(token, result, "load ended") }
            for (consumer, _) in waiting {
                consumers[consumer] = nil
                answered.append(consumer)
            }
            if quality == .preview, value != nil { saw("a preview load ends at its preview") }
            switch next {
            case .end:
                workers[key] = nil
            case .continue(let load):
                require(canContinue, "\(context): a worker that cannot continue took \(load)")
                let runner = worker.runner
                let record = Worker(id: load.id, load: load.load, quality: machine.targetQuality(of: load.id),
                                    previewAtStart: machine.scheduler.entries[load.id]?.hasPreview ?? false, runner: runner)
                workers[key] = record
                noteStart(record)
                saw("continue")
            case .spawn(let spawn):
                require(!canContinue, "\(context): a worker that can continue handed \(spawn.load) over")
                workers[key] = nil
                spawned([spawn], "hand-over")
            }
        }

        // MARK: Steps

        mutating func randomStep() {
            let id = drawID()
            switch draw.below(100) {
            case 0..<16: request(id)
            case 16..<21: reserve(id)
            case 21..<26: attach()
            case 26..<35: prefetch()
            case 35..<44: update()
            case 44..<49: cancelPrefetching()
            case 49..<57: withdraw()
            case 57..<65: register()
            case 65..<66:
                // A memory warning: the cache empties (its preview marks may outlive its values).
                machine.cache.removeAll()
                cacheBefore = [:]
                saw("cache cleared")
            default:
                let keys = workers.keys.sorted()
                guard !keys.isEmpty else { break }
                progress(keys[draw.below(keys.count)])
            }
        }

        /// `fetchAsync(_:priority:quality:preview:completion:)`.
        mutating func request(_ id: Int) {
            let priority = draw.priority(), quality = drawQuality(), watches = draw.chance(60)
            let token = newWaiter(id, quality, watches: watches && quality == .full)
            let cached = machine.cache.peek(forKey: id)
            let hit = cacheAnswers(id, quality)
            let held = machine.scheduler.contains(id)
            let action = machine.request(id, waiter: token, priority: priority, quality: quality, watchesPreview: watches)
            if isShutdown {
                guard case .refused = action else {
                    Issue.record("\(context): a request after shutdown got \(action)")
                    return
                }
                complete(token, .failure(CancellationError()), "refused")
                return
            }
            switch action {
            case .refused:
                Issue.record("\(context): refused before shutdown")
            case .hit(let value):
                require(hit && value == cached, "\(context): \(quality) request for \(id) answered by the cache with \(value), which holds \(String(describing: cached))")
                complete(token, .success(value), "cache hit")
            case .requested(let consumer, let joined, let spawn, let preempt, let preview):
                require(!hit, "\(context): \(quality) request for \(id) missed the cached \(String(describing: cached))")
                require(joined == held, "\(context): request for \(id) joined \(joined), held \(held)")
                newConsumer(consumer)
                consumers[consumer] = Consumer(id: id, token: token, quality: quality, watches: watches && quality == .full)
                // A cached preview is shown at once to a full request that watches for one.
                let cachedPreview = cached.flatMap { Self.tag($0)?.quality == .preview ? $0 : nil }
                require(preview == (watches && quality == .full ? cachedPreview : nil), "\(context): \(id)'s cached preview shown: \(String(describing: preview))")
                if cachedPreview != nil, quality == .full { saw("a full request finds a cached preview") }
                if let preview {
                    show(token, preview, "cached preview")
                    saw("a cached preview shown at once")
                }
                spawned(spawn.map { [$0] } ?? [], "request")
                cancelled(preempt.map { [$0] } ?? [], "request")
                if quality == .full, joined { saw("a full request joins a load") }
            }
        }

        /// `value(for:priority:quality:)`, first step.
        mutating func reserve(_ id: Int) {
            let quality = drawQuality()
            let cached = machine.cache.peek(forKey: id)
            let hit = cacheAnswers(id, quality)
            let action = machine.reserve(id, quality: quality)
            if isShutdown {
                guard case .refused = action else {
                    Issue.record("\(context): a reservation after shutdown got \(action)")
                    return
                }
                return
            }
            switch action {
            case .refused:
                Issue.record("\(context): refused before shutdown")
            case .hit(let value):
                require(hit && value == cached, "\(context): \(quality) value(for: \(id)) returned \(value), the cache holds \(String(describing: cached))")
                checkAnswer(value, id: id, quality: quality, "reserve")
            case .reserved(let consumer):
                require(!hit, "\(context): \(quality) value(for: \(id)) missed the cached \(String(describing: cached))")
                newConsumer(consumer)
                reservations[consumer] = Reservation(id: id, quality: quality)
            }
        }

        /// `value(for:priority:quality:)`, second step: the continuation attaches.
        mutating func attach() {
            let reserved = reservations.keys.sorted()
            guard !reserved.isEmpty else { return }
            let consumer = reserved[draw.below(reserved.count)]
            let reservation = reservations.removeValue(forKey: consumer)!
            let id = reservation.id, quality = reservation.quality
            let token = newWaiter(id, quality, watches: false)
            let cached = machine.cache.peek(forKey: id)
            let hit = cacheAnswers(id, quality)
            let held = machine.scheduler.contains(id)
            let action = machine.attach(consumer, for: id, waiter: token, priority: draw.priority(), quality: quality)
            if reservation.cancelled {
                guard case .cancelled = action else {
                    Issue.record("\(context): a cancelled reservation attached: \(action)")
                    return
                }
                complete(token, .failure(CancellationError()), "cancelled before attaching")
                answered.append(consumer)
                return
            }
            if isShutdown {
                guard case .refused = action else {
                    Issue.record("\(context): an attach after shutdown got \(action)")
                    return
                }
                complete(token, .failure(CancellationError()), "refused")
                answered.append(consumer)
                return
            }
            switch action {
            case .cancelled, .refused:
                Issue.record("\(context): attach got \(action)")
            case .hit(let value):
                require(hit && value == cached, "\(context): \(quality) attach for \(id) answered with \(value), the cache holds \(String(describing: cached))")
                complete(token, .success(value), "attach hit")
                answered.append(consumer)
            case .requested(let joined, let spawn, let preempt):
                require(!hit, "\(context): \(quality) attach for \(id) missed the cached \(String(describing: cached))")
                require(joined == held, "\(context): attach for \(id) joined \(joined), held \(held)")
                consumers[consumer] = Consumer(id: id, token: token, quality: quality, watches: false)
                spawned(spawn.map { [$0] } ?? [], "attach")
                cancelled(preempt.map { [$0] } ?? [], "attach")
            }
        }

        /// `prefetch(_:priority:destination:quality:)`.
        mutating func prefetch() {
            let batch = (0..<(1 + draw.below(4))).map { _ in drawID() }
            let quality = drawQuality()
            let hits = batch.filter { cacheAnswers($0, quality) }
            let action = machine.prefetch(batch, priority: draw.priority(), quality: quality)
            if isShutdown {
                require(action.rejected == batch && action.spawn.isEmpty && action.cancel.isEmpty, "\(context): prefetch after shutdown")
                return
            }
            require(action.rejected.isEmpty && action.hits == hits, "\(context): \(quality) prefetch of \(batch) hit \(action.hits), the cache answers \(hits)")
            spawned(action.spawn, "prefetch")
            cancelled(action.cancel, "prefetch")
        }

        /// A controller's frame (`updatePrefetching`), each request at its own quality.
        mutating func update() {
            let requests = (0..<draw.below(5)).map { _ in (drawID(), draw.priority()) }
            let qualities = draw.chance(80) ? requests.map { _ in drawQuality() } : []
            let cancelling = (0..<draw.below(4)).map { _ in drawID() }
            let action = machine.updatePrefetching(requests, qualities: qualities, cancelling: cancelling)
            if isShutdown {
                require(action.rejected == requests.map(\.0) && action.spawn.isEmpty && action.cancel.isEmpty, "\(context): update after shutdown")
                return
            }
            spawned(action.spawn, "update")
            cancelled(action.cancel, "update")
        }

        mutating func cancelPrefetching() {
            let batch = (0..<(1 + draw.below(4))).map { _ in drawID() }
            let action = machine.cancelPrefetching(batch)
            require(!isShutdown || (action.spawn.isEmpty && action.cancel.isEmpty), "\(context): cancel prefetching after shutdown")
            spawned(action.spawn, "cancel prefetching")
            cancelled(action.cancel, "cancel prefetching")
        }

        /// A consumer withdraws: waiting, reserved, or answered already (cell reuse after delivery).
        mutating func withdraw() {
            let pools = [consumers.keys.sorted(), reservations.keys.sorted(), answered]
            let pool = pools[draw.below(pools.count)]
            guard !pool.isEmpty else { return }
            let consumer = pool[draw.below(pool.count)]
            let action = machine.withdraw(consumer)
            if reservations[consumer] != nil {
                reservations[consumer]!.cancelled = true
                guard case .none = action else {
                    Issue.record("\(context): a reservation has no waiter yet, got \(action)")
                    return
                }
            } else if let waiting = consumers.removeValue(forKey: consumer) {
                answered.append(consumer)
                guard case .withdrawn(let token, let cancellation, let spawn) = action, token == waiting.token else {
                    Issue.record("\(context): expected \(waiting.token) withdrawn, got \(action)")
                    return
                }
                complete(token, .failure(CancellationError()), "withdrawn")
                spawned(spawn.map { [$0] } ?? [], "withdraw")
                cancelled(cancellation.map { [$0] } ?? [], "withdraw")
                if waiting.quality == .preview { saw("a preview consumer withdraws") }
            } else {
                guard case .none = action else {
                    Issue.record("\(context): an answered consumer withdrew, got \(action)")
                    return
                }
                saw("withdraw after the answer")
            }
        }

        /// New workers' task handles are registered, some late (after their load was cancelled, or after they ended).
        mutating func register() {
            for worker in unregistered where draw.chance(60) {
                unregistered.removeAll { $0 == worker }
                let runner = 1_000_000 + Int(worker.rawValue)
                let cancelNow = machine.register(worker, runner: runner)
                guard let record = workers[worker.rawValue] else {
                    require(!cancelNow, "\(context): \(worker) ended, nothing to cancel")
                    continue
                }
                require(cancelNow == record.cancelPending, "\(context): \(worker) registration")
                if record.cancelPending { workers[worker.rawValue]!.cancelPending = false } else { workers[worker.rawValue]!.runner = runner }
            }
        }

        // MARK: Drain, shutdown, end

        /// Every load runs to its value (no new requests meanwhile): then every consumer has heard
        /// and nothing waits.
        mutating func drain() {
            phase = "drain"
            var rounds = 0
            while let key = workers.keys.min(), rounds < 20_000 {
                rounds += 1
                progress(key, draining: true)
                check()
            }
            require(workers.isEmpty, "\(context): the loads never drained")
            require(machine.scheduler.entries.isEmpty, "\(context): after the drain \(machine.scheduler.entries.keys.sorted()) still wait")
            require(consumers.isEmpty && machine.consumers.isEmpty, "\(context): consumers \(consumers.keys.sorted()) never heard")
            for (token, waiter) in waiters where waiter.completions != 1 {
                Issue.record("\(context): waiter \(token) heard \(waiter.completions) times by the drain")
            }
            phase = "random"
        }

        /// Every running load is cancelled, every waiting consumer answered; nothing starts after.
        mutating func shutDown() {
            phase = "shutdown"
            let running = workers.values.filter(\.running).map(\.id).sorted()
            let waiting = consumers.values.map(\.token).sorted()
            let action = machine.shutdown()
            require(action.cancel.map(\.id).sorted() == running, "\(context): shutdown cancelled \(action.cancel.map(\.id)), running \(running)")
            cancelled(action.cancel, "shutdown")
            require(action.abandon.sorted() == waiting, "\(context): shutdown answered \(action.abandon.sorted()), waiting \(waiting)")
            for token in action.abandon { complete(token, .failure(CancellationError()), "shutdown") }
            answered += consumers.keys.sorted()
            consumers.removeAll()
            isShutdown = true
            startedAtShutdown = machine.stats.loadsStarted
            let again = machine.shutdown()
            require(again.cancel.isEmpty && again.abandon.isEmpty, "\(context): a second shutdown is a no-op")
            phase = "after shutdown"
        }

        /// The cancelled loads' workers report; then every waiter has heard exactly once.
        mutating func end() {
            phase = "end"
            for key in workers.keys.sorted() {
                require(!workers[key]!.running, "\(context): a load runs after shutdown")
                progress(key, draining: true)
                check()
            }
            require(machine.workers.isEmpty && machine.workerOfLoad.isEmpty, "\(context): workers left")
            require(machine.stats.loadsStarted == startedAtShutdown, "\(context): loads started after shutdown")
            for (token, waiter) in waiters where waiter.completions != 1 {
                Issue.record("\(context): waiter \(token) heard \(waiter.completions) times")
            }
        }

        func expectRarePathsReached() {
            var paths = ["a preview load in flight is upgraded", "a preview shown, then the full value", "a preview waits for a slot",
                         "a preview answers a preview request", "a full request finds a cached preview", "a cached preview shown at once",
                         "a preview shown on the way", "a preview arrives on the way", "a preview load brings the full value",
                         "a preview load ends at its preview", "a preview answers the last interest: the load stops",
                         "a cancelled load's preview is ignored", "a preview arrives for a cached full value", "late result",
                         "withdraw after the answer"]
            if previewSlots > 0 {
                paths += ["previews are seen on the way", "a full value's first bytes start", "an upgraded load runs in its preview slot"]
            }
            // With a cap of 6 (and first bytes in preview slots) the cap's slots are seldom all
            // taken by loads completing full values.
            if cap <= 2 { paths.append("a load yields its slot after its preview") }
            if cap <= 2, previewSlots > 0 { paths.append("loads of previews beside a full cap") }
            for path in paths {
                #expect(seen[path, default: 0] > 0, "seed \(seed) cap \(cap) previewSlots \(previewSlots) \(preemption): the path '\(path)' never ran")
            }
            #expect(peakRunning == cap + previewSlots, "seed \(seed): at most \(peakRunning) loads ran, never all \(cap + previewSlots) slots")
        }

        // MARK: Invariants

        /// Checks the promises after a step, against the test's own record.
        mutating func check() {
            machine._checkInvariants()
            let total = cap + previewSlots
            let running = workers.filter(\.value.running)
            // One load per id, and the loads the test saw start and stop are the ones that run.
            var loadsOf: [Int: Int] = [:]
            for worker in running.values { loadsOf[worker.id, default: 0] += 1 }
            for (id, count) in loadsOf where count > 1 { Issue.record("\(context): \(count) loads of \(id) run at once") }
            var runningInMachine = Set<Machine.RunningLoad>(), waitingIDs: [Int] = []
            for (id, entry) in machine.scheduler.entries {
                switch entry.phase {
                case .running(let load): runningInMachine.insert(Machine.RunningLoad(id, load))
                case .waiting: waitingIDs.append(id)
                }
            }
            let runningHere = Set(running.values.map { Machine.RunningLoad($0.id, $0.load) })
            require(runningHere == runningInMachine, "\(context): the test saw \(runningHere.map(\.description).sorted()) start, \(runningInMachine.map(\.description).sorted()) run")
            require(machine.workers.count == workers.count, "\(context): \(machine.workers.count) workers, the test knows \(workers.count)")
            for (key, worker) in workers {
                let record = machine.workers[Machine.WorkerID(rawValue: key)]
                if record?.load != (worker.running ? worker.load : nil) || record?.runner != worker.runner || record?.cancelPending != worker.cancelPending {
                    Issue.record("\(context): worker W\(key) is \(String(describing: record)), the test says \(worker)")
                }
            }
            // The slots: all of them at most; loads completing full values within the cap.
            require(running.count <= total, "\(context): \(running.count) loads run, over \(cap) + \(previewSlots)")
            peakRunning = max(peakRunning, running.count)
            let completing = running.values.filter { $0.quality == .full && ($0.previewIn || $0.previewAtStart || !firstBytes) }
            require(completing.count <= cap, "\(context): \(completing.count) loads complete full values, over the cap \(cap): \(completing.map(\.id).sorted())")
            for worker in running.values where worker.quality == .full && worker.previewIn {
                require(machine.scheduler.entries[worker.id]?.fullSlot == true,
                        "\(context): \(worker.id)'s load goes on to the full value after its preview outside the cap's slots")
            }
            if running.values.contains(where: { $0.quality == .preview && machine.scheduler.targetQuality(of: $0.id) == .full }) {
                saw("an upgraded load runs in its preview slot")
            }
            if completing.count == cap, running.count > cap { saw("loads of previews beside a full cap") }
            // No slot idle while a load that may take it waits.
            if !waitingIDs.isEmpty {
                require(running.count >= cap, "\(context): \(waitingIDs.sorted()) wait while only \(running.count) of \(cap) run")
            }
            for id in waitingIDs {
                guard let entry = machine.scheduler.entries[id] else { continue }
                if entry.previewOnly {
                    saw("a preview waits for a slot")
                    require(running.count == total, "\(context): the preview of \(id) waits while \(running.count) of \(total) slots are taken")
                } else if firstBytes, !entry.hasPreview {
                    require(running.count == total, "\(context): \(id)'s first bytes wait while \(running.count) of \(total) slots are taken")
                }
            }
            require(firstBytes == machine.scheduler.firstBytesAnySlot, "\(context): first bytes in preview slots: \(machine.scheduler.firstBytesAnySlot)")
            // Consumers: the ones the test knows wait, and a full request upgraded its id's load.
            require(Set(machine.consumers.keys) == Set(consumers.keys), "\(context): waiting consumers")
            require(machine.reservations == reservations.mapValues(\.cancelled), "\(context): reservations")
            for consumer in consumers.values where consumer.quality == .full {
                require(machine.scheduler.targetQuality(of: consumer.id) == .full, "\(context): \(consumer.id) is wanted in full, its load targets a preview")
            }
            let watching = Set(consumers.filter { $0.value.watches && waiters[$0.value.token]!.previewsShown == 0 }.keys)
            require(machine.previews.watchers == watching, "\(context): watchers \(machine.previews.watchers.sorted()), the test says \(watching.sorted())")
            require(machine.previews.satisfied == Set(consumers.filter { $0.value.quality == .preview }.keys), "\(context): consumers a preview answers")
            // The cache: each value under its own id, a preview marked so that it never answers a
            // request for the full value, and never in place of a full value.
            var cached: [Int: String] = [:]
            for id in machine.cache.keysByRecency {
                guard let now = machine.cache.peek(forKey: id) else { continue }
                cached[id] = now
                let tag = Self.tag(now)
                require(tag?.id == id, "\(context): the cache holds \(now) for \(id)")
                guard tag?.quality == .preview else { continue }
                require(machine.previews.cached.contains(id), "\(context): the cache holds the preview \(now) as a full value")
                if let before = cacheBefore[id], Self.tag(before)?.quality == .full {
                    Issue.record("\(context): the preview \(now) replaced the cached full value \(before)")
                }
            }
            cacheBefore = cached
            if isShutdown {
                require(running.isEmpty && machine.scheduler.entries.isEmpty, "\(context): work left after shutdown")
            }
        }
    }
}

/// Records an issue when `condition` fails: the checks of every step, cheaper than `#expect` (and,
/// as a free function, without a copy of the whole run in a debug build).
private func require(_ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
    if !condition { Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation) }
}
