import Foundation
import HeapModule
import PrefetchCollectionView
import PrefetchKit

/// What a cell shows: which item, whether its data is there, and the consumer it holds.
@MainActor
final class CellSlot {
    var item: Int?
    var hasData = false
    var consumer: (item: Int, id: FetchScheduler<Int>.ConsumerID)?
    weak var core: SimulationCore?

    func prepareForReuse() {
        core?.cellReused(self)
    }
}

/// The app side of a simulation: the seeds' data source logic on a real ``FetchScheduler``,
/// simulated loads on virtual time, and the measurements.
@MainActor
final class SimulationCore {
    private struct PendingLoad: Comparable {
        var time: Double
        var load: FetchScheduler<Int>.LoadID
        var item: Int
        var succeeds: Bool
        static func < (a: PendingLoad, b: PendingLoad) -> Bool { (a.time, a.load) < (b.time, b.load) }
    }

    let scenario: Scenario
    let configuration: SimulationConfiguration
    private let recordOnly: Bool
    private let schedule: [Appearance]?
    weak var view: ItemScrollView?

    private(set) var now = 0.0
    private var scheduler: FetchScheduler<Int>
    private var cache: MemoryCache<Int, Double>
    private var pending = Heap<PendingLoad>()
    private var runningLoads: [FetchScheduler<Int>.LoadID: Int] = [:]
    private var loadOrdinal: [Int: Int] = [:]
    private var consumerSlots: [FetchScheduler<Int>.ConsumerID: CellSlot] = [:]
    private var nextConsumer: UInt64 = 0

    private var waits: [Double] = []
    private var readyAppearances = 0
    private var blankSince: [Int: (start: Double, wait: Int)] = [:]
    private var onScreen = Set<Int>()
    private var everDisplayed = Set<Int>()
    private var completedItems: [Int] = []
    private var loadsStarted = 0, loadsCompleted = 0, loadsCancelled = 0, peakInFlight = 0
    private var latencies: [Duration] = []
    private var latencyCursor = 0
    private var appearanceLog: [Appearance] = []
    private var scheduleCursor = 0
    private var hasLaidOutFirstScreen = false
    private(set) var timeline = SimulationTimeline()

    init(scenario: Scenario, configuration: SimulationConfiguration, mode: Simulator.Mode) {
        self.scenario = scenario
        self.configuration = configuration
        switch mode {
        case .recordAppearances: recordOnly = true; schedule = nil
        case .simulate(let s): recordOnly = false; schedule = s
        }
        scheduler = FetchScheduler(maxConcurrentLoads: configuration.maxConcurrentLoads)
        cache = try! MemoryCache(countLimit: configuration.cacheCountLimit)
        timeline.itemCount = scenario.layout.itemCount
    }

    var itemCount: Int { scenario.layout.itemCount }

    // MARK: Data source

    func cellRequested(item: Int, slot: CellSlot) {
        slot.core = self
        slot.item = item
        guard !recordOnly else { return }
        if cache.value(forKey: item) != nil {
            slot.hasData = true
            return
        }
        slot.hasData = false
        nextConsumer += 1
        let consumer = FetchScheduler<Int>.ConsumerID(rawValue: nextConsumer)
        consumerSlots[consumer] = slot
        slot.consumer = (item, consumer)
        apply(scheduler.request(item, interest: .consumer(consumer), priority: .visible))
    }

    func prefetch(items: [Int]) {
        guard !recordOnly else { return }
        for (order, item) in items.enumerated() where !cache.contains(item) {
            apply(scheduler.request(item, interest: .prefetch, priority: FetchPriority(level: .prefetch, order: Double(order))))
        }
    }

    func cancelPrefetching(items: [Int]) {
        guard !recordOnly else { return }
        for item in items { apply(scheduler.release(item, interest: .prefetch)) }
    }

    func willDisplay(item: Int) {
        onScreen.insert(item)
        if recordOnly {
            appearanceLog.append(Appearance(time: now, item: item))
            return
        }
        everDisplayed.insert(item)
        // The first screen appears before anything could be prefetched: no policy can change it.
        guard hasLaidOutFirstScreen else { return }
        if cache.value(forKey: item) != nil {
            readyAppearances += 1
            waits.append(0)
        } else {
            waits.append(0)
            blankSince[item] = (now, waits.count - 1)
        }
    }

    /// A cell left the screen: nothing wants its data any more (the view prefetches it again
    /// if its policy still wants it), so both its consumer and the prefetch interest go.
    func didEndDisplaying(item: Int, slot: CellSlot) {
        onScreen.remove(item)
        endBlank(item, at: now)
        releaseConsumer(of: slot)
        if !recordOnly { apply(scheduler.release(item, interest: .prefetch)) }
    }

    func cellReused(_ slot: CellSlot) {
        releaseConsumer(of: slot)
        slot.item = nil
        slot.hasData = false
    }

    private func releaseConsumer(of slot: CellSlot) {
        guard let (item, consumer) = slot.consumer else { return }
        slot.consumer = nil
        consumerSlots[consumer] = nil
        apply(scheduler.release(item, interest: .consumer(consumer)))
    }

    private func endBlank(_ item: Int, at time: Double) {
        guard let blank = blankSince.removeValue(forKey: item) else { return }
        waits[blank.wait] = time - blank.start
        timeline.blanks.append(.init(item: item, start: blank.start, end: time))
    }

    // MARK: Loads

    private func apply(_ action: FetchScheduler<Int>.RequestAction) {
        if let started = action.start { start(started.id, started.load) }
    }

    private func apply(_ action: FetchScheduler<Int>.ReleaseAction) {
        guard case .cancel(let cancelled, let next) = action else { return }
        loadsCancelled += 1
        if let index = runningLoads.removeValue(forKey: cancelled.load) {
            timeline.loads[index].end = now
            timeline.loads[index].outcome = .cancelled
        }
        if let next { start(next.id, next.load) }
    }

    /// The total time and outcome of a load: every attempt, with back-off waits between them.
    func loadDuration(item: Int, ordinal: Int) -> (seconds: Double, succeeds: Bool) {
        var total = 0.0
        let retry = configuration.retry
        for attempt in 1...retry.maxAttempts {
            let draw = configuration.latency.draw(
                seed: configuration.seed, item: item, load: ordinal, attempt: attempt, payloadBytes: scenario.payloadBytes)
            total += draw.latency
            if !draw.fails { return (total, true) }
            if attempt < retry.maxAttempts {
                var jitter = SplitMix64(seed: configuration.seed ^ UInt64(truncatingIfNeeded: item &* 7919 &+ ordinal &* 131 &+ attempt))
                total += retry.delay(afterAttempt: attempt, random: jitter.nextUnitInterval()).seconds
            }
        }
        return (total, false)
    }

    private func start(_ item: Int, _ load: FetchScheduler<Int>.LoadID) {
        let ordinal = loadOrdinal[item, default: 0]
        loadOrdinal[item] = ordinal + 1
        let (seconds, succeeds) = loadDuration(item: item, ordinal: ordinal)
        pending.insert(PendingLoad(time: now + seconds, load: load, item: item, succeeds: succeeds))
        runningLoads[load] = timeline.loads.count
        timeline.loads.append(.init(item: item, start: now, end: now + seconds, outcome: .running))
        loadsStarted += 1
        peakInFlight = max(peakInFlight, scheduler.runningCount)
    }

    /// Finishes, in time order, every load due by `time`, then moves the clock to `time`.
    func finishLoads(upTo time: Double) {
        while let next = pending.min, next.time <= time {
            pending.removeMin()
            guard let index = runningLoads.removeValue(forKey: next.load) else { continue }  // cancelled
            now = next.time
            let action = scheduler.finished(next.item, load: next.load)
            timeline.loads[index].outcome = next.succeeds ? .completed : .failed
            if next.succeeds {
                loadsCompleted += 1
                completedItems.append(next.item)
                try? cache.insert(now, forKey: next.item)
                recordLatency(now - timeline.loads[index].start)
                endBlank(next.item, at: now)
            }
            if case .deliver(let consumers, let started) = action {
                for consumer in consumers {
                    guard let slot = consumerSlots.removeValue(forKey: consumer) else { continue }
                    slot.consumer = nil
                    // The seeds' representedIdentifier check: a reused cell ignores another item's data.
                    if next.succeeds, slot.item == next.item { slot.hasData = true }
                }
                if let started { start(started.id, started.load) }
            }
            topUpClairvoyant()
        }
        now = time
    }

    private func recordLatency(_ seconds: Double) {
        let sample = Duration.nanoseconds(Int64(seconds * 1e9))
        if latencies.count < 64 {
            latencies.append(sample)
        } else {
            latencies[latencyCursor] = sample
            latencyCursor = (latencyCursor + 1) % 64
        }
    }

    /// Tells the view's policy what the loads measured so far (as `AsyncFetcher.expectedLatency` would).
    func updateLatencyEstimate() {
        view?.latencyEstimate = LatencySummary(samples: latencies).expected
    }

    func afterFrame(time: Double) {
        hasLaidOutFirstScreen = true
        topUpClairvoyant()
    }

    /// The reference's own priority level, above `visible`: its plan outranks cells' requests.
    private static let plannedLevel = FetchPriority.Level(rawValue: FetchPriority.Level.visible.rawValue + 100)
    private var plannedWaiting: [Int] = []  // in request order, so runs repeat across processes

    /// The reference: keeps the queue filled, earliest deadline first, with items that can still
    /// be ready in time. It knows every load's duration and when each running load ends, so it
    /// projects when a slot frees up and skips an item that would miss its deadline from there.
    private func topUpClairvoyant() {
        guard let schedule else { return }
        while scheduleCursor < schedule.count, schedule[scheduleCursor].time <= now { scheduleCursor += 1 }
        plannedWaiting = plannedWaiting.filter { scheduler.phase(of: $0) == .waiting }
        // When each slot frees up: running loads end at known times; planned waiting loads follow.
        var slots = runningLoads.values.map { timeline.loads[$0].end }.sorted()
        slots += Array(repeating: now, count: max(0, configuration.maxConcurrentLoads - slots.count))
        for item in plannedWaiting {
            let earliest = slots.indices.min { slots[$0] < slots[$1] }!
            slots[earliest] += loadDuration(item: item, ordinal: loadOrdinal[item, default: 0]).seconds
        }
        let horizon = min(schedule.count, scheduleCursor + configuration.cacheCountLimit / 2)
        var index = scheduleCursor
        var scanned = 0
        while plannedWaiting.count < configuration.maxConcurrentLoads, index < horizon, scanned < 400 {
            let next = schedule[index]
            index += 1
            scanned += 1
            if cache.contains(next.item) || plannedWaiting.contains(next.item) { continue }
            if case .running? = scheduler.phase(of: next.item) { continue }
            let (seconds, succeeds) = loadDuration(item: next.item, ordinal: loadOrdinal[next.item, default: 0])
            let earliest = slots.indices.min { slots[$0] < slots[$1] }!
            // Cannot be ready in time (or will fail): leave the slot to one that can.
            guard succeeds, slots[earliest] + seconds <= next.time else { continue }
            slots[earliest] += seconds
            plannedWaiting.append(next.item)
            apply(scheduler.request(next.item, interest: .prefetch, priority: FetchPriority(level: Self.plannedLevel, order: next.time)))
        }
    }

    // MARK: Results

    func sampleFrame(time: Double) {
        let visible = onScreen.min().flatMap { lo in onScreen.max().map { lo...$0 } }
        let pendingItems = view?.indexPathsPendingPrefetch.map(\.item) ?? []
        let window = pendingItems.min().flatMap { lo in pendingItems.max().map { lo...$0 } }
        timeline.frames.append(.init(time: time, visible: visible, prefetch: window))
    }

    func firstAppearances() -> [Appearance] {
        var seen = Set<Int>()
        return appearanceLog.sorted().filter { seen.insert($0.item).inserted }
    }

    func finish(at time: Double) {
        now = time
        for item in Array(blankSince.keys).sorted() { endBlank(item, at: time) }
        for (_, index) in runningLoads { timeline.loads[index].end = time }
        timeline.duration = time
    }

    func result(scenario: String, policy: String, frameTimes: [Double]) -> SimulationResult {
        let sortedWaits = waits.sorted()
        let displayed = waits.count
        let duration = timeline.duration
        let wasted = completedItems.filter { !everDisplayed.contains($0) }.count
        var result = SimulationResult(
            scenario: scenario, policy: policy, displayed: displayed,
            displayReadyRate: displayed == 0 ? 1 : Double(readyAppearances) / Double(displayed),
            visibleWaitMeanMs: displayed == 0 ? 0 : waits.reduce(0, +) / Double(displayed) * 1000,
            visibleWaitP95Ms: percentile(sortedWaits, 0.95) * 1000,
            blankCellSeconds: waits.reduce(0, +),
            loadsStarted: loadsStarted, loadsCompleted: loadsCompleted, loadsCancelled: loadsCancelled,
            loadsWasted: wasted, peakInFlight: peakInFlight,
            requestsPerSecond: duration > 0 ? Double(loadsStarted) / duration : 0,
            duration: duration)
        let sortedFrames = frameTimes.sorted()
        result.frameTime.meanMicroseconds = frameTimes.isEmpty ? 0 : frameTimes.reduce(0, +) / Double(frameTimes.count)
        result.frameTime.p95Microseconds = percentile(sortedFrames, 0.95)
        return result
    }
}

/// The `p` quantile of sorted values (nearest rank), or 0 when there are none.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((Double(sorted.count) * p).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
