import PrefetchTesting
import Testing
@testable import PrefetchKit

/// A preview loader whose every step waits for the test: `"1p"` a preview load of item 1, `"1h"`
/// the progressive head of a full load (shown as its preview), `"1f"` the full value.
struct SteppedPreviewLoader: PreviewLoader {
    let steps = ScriptedLoader<String, String>()
    /// Whether a full load brings its head first (a progressive image) and reports it as a preview.
    var progressive = false

    func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable (String) -> Void) async throws -> String {
        if quality == .preview { return try await steps.load("\(id)p") }
        if progressive { preview(try await steps.load("\(id)h")) }
        return try await steps.load("\(id)f")
    }
}

/// A preview loader that has some items' full values at hand (on its own disk): asked for their
/// preview, it returns the full value and says so (`FetchLoadContext.recordFullQuality()`).
struct DiskFirstPreviewLoader: PreviewLoader {
    let steps = ScriptedLoader<String, String>()
    let onDisk: Set<Int>

    func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable (String) -> Void) async throws -> String {
        guard quality == .preview else {
            // Never asked for while the fetcher keeps what the preview load brought (so a test
            // fails on the value instead of waiting for a step that never comes).
            if onDisk.contains(id) { return "a second load of \(id)" }
            return try await steps.load("\(id)f")
        }
        let value = try await steps.load("\(id)p")
        if onDisk.contains(id) { FetchLoadContext.recordFullQuality() }
        return value
    }
}

/// A preview loader that hands the test each load's `FetchLoadContext.liveQuality` reader.
struct QualityReadingLoader: PreviewLoader {
    let steps = ScriptedLoader<String, String>()
    let readers = Locked<[Int: @Sendable () -> FetchQuality?]>([:])

    func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable (String) -> Void) async throws -> String {
        if let reader = FetchLoadContext.liveQuality { readers.withLock { $0[id] = reader } }
        return try await steps.load("\(id)\(quality == .preview ? "p" : "f")")
    }
}

/// What a consumer heard, in order.
final class Heard: Sendable {
    private let log = Locked<[String]>([])
    private let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    var entries: [String] { log.withLock { $0 } }
    func add(_ entry: String) {
        log.withLock { $0.append(entry) }
        continuation.yield()
    }
    /// Waits until `count` entries are in.
    func wait(for count: Int) async {
        var iterator = stream.makeAsyncIterator()
        while log.withLock({ $0.count }) < count { _ = await iterator.next() }
    }
}

/// Previews in the engine (issue #36): a request at preview quality loads only the preview, a
/// request for the full value upgrades (a cached preview is shown at once, a preview load in
/// flight goes on as the same load), a progressive full load shows its head on the way, and
/// every cell hears its full value last.
@Suite("Previews")
struct PreviewTests {
    func makeFetcher(_ loader: SteppedPreviewLoader, store: InMemoryDataStore<Int, String>? = nil, events: Heard? = nil) throws -> AsyncFetcher<Int, String> {
        try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), store: store,
                         onEvent: { event in
                             if case .previewLoaded(let id) = event { events?.add("preview event \(id)") }
                             if case .storeWritten(let id) = event { events?.add("stored \(id)") }
                         }, loader: loader)
    }

    func check(_ fetcher: AsyncFetcher<Int, String>) {
        fetcher.state.withLock { $0._checkInvariants() }
    }

    @Test func aPreviewPrefetchLoadsOnlyThePreviewAndCachesItAsAPreview() async throws {
        let loader = SteppedPreviewLoader()
        let fetcher = try makeFetcher(loader)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        #expect(loader.steps.succeed("1p", with: "blurry 1"))
        _ = try await fetcher.value(for: 1, quality: .preview)
        #expect(fetcher.fetchedData(for: 1) == "blurry 1", "a cell shows the preview")
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == nil, "but it is not the full value")
        #expect(fetcher.fetchedData(for: 1, atLeast: .preview) == "blurry 1")
        // A second preview request is a hit: no load
        fetcher.prefetch([1], quality: .preview)
        #expect(loader.steps.calledIDs == ["1p"])
        #expect(fetcher.statistics.loadsStarted == 1)
        check(fetcher)
    }

    @Test func aFullRequestShowsTheCachedPreviewAtOnceThenLoadsTheFullValue() async throws {
        let loader = SteppedPreviewLoader()
        let fetcher = try makeFetcher(loader)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1p", with: "blurry 1")
        _ = try await fetcher.value(for: 1, quality: .preview)
        let heard = Heard()
        let handle = fetcher.fetchAsync(1, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        #expect(handle != nil)
        #expect(heard.entries == ["preview blurry 1"], "the cached preview is shown before the call returns")
        await loader.steps.waitForCalls(2)
        #expect(loader.steps.calledIDs == ["1p", "1f"])
        loader.steps.succeed("1f", with: "sharp 1")
        await heard.wait(for: 2)
        #expect(heard.entries == ["preview blurry 1", "full success(\"sharp 1\")"])
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == "sharp 1")
        check(fetcher)
    }

    @Test func aFullRequestUpgradesAPreviewLoadInFlightAsTheSameLoad() async throws {
        let loader = SteppedPreviewLoader()
        let events = Heard()
        let fetcher = try makeFetcher(loader, events: events)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        // A cell asks for the full value while the preview loads
        let heard = Heard()
        fetcher.fetchAsync(1, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        check(fetcher)
        loader.steps.succeed("1p", with: "blurry 1")
        // The preview is shown, and the same load goes on to the full value
        await heard.wait(for: 1)
        #expect(heard.entries == ["preview blurry 1"])
        await loader.steps.waitForCalls(2)
        #expect(loader.steps.calledIDs == ["1p", "1f"])
        #expect(fetcher.fetchedData(for: 1) == "blurry 1" && fetcher.fetchedData(for: 1, atLeast: .full) == nil)
        loader.steps.succeed("1f", with: "sharp 1")
        await heard.wait(for: 2)
        #expect(heard.entries == ["preview blurry 1", "full success(\"sharp 1\")"])
        let statistics = fetcher.statistics
        #expect(statistics.loadsStarted == 1 && statistics.loadsCompleted == 1, "one load, upgraded: \(statistics)")
        #expect(fetcher.state.withLock { $0.previews.upgraded } == 1)
        #expect(events.entries == ["preview event 1"])
        check(fetcher)
    }

    @Test func aProgressiveFullLoadShowsItsHeadAndAnswersPreviewRequestsWithIt() async throws {
        var loader = SteppedPreviewLoader()
        loader.progressive = true
        let fetcher = try makeFetcher(loader)
        let heard = Heard()
        fetcher.fetchAsync(1, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1h", with: "head 1")
        await heard.wait(for: 1)
        #expect(heard.entries == ["preview head 1"])
        // A request that a preview satisfies is answered from the cache while the rest loads
        #expect(try await fetcher.value(for: 1, quality: .preview) == "head 1")
        await loader.steps.waitForCalls(2)
        loader.steps.succeed("1f", with: "sharp 1")
        await heard.wait(for: 2)
        #expect(heard.entries == ["preview head 1", "full success(\"sharp 1\")"])
        #expect(try await fetcher.value(for: 1) == "sharp 1")
        check(fetcher)
    }

    @Test func onceItsPreviewIsInALoadsLivePriorityDropsToSpeculative() async throws {
        let seen = Locked<[FetchPriority.Level?]>([])
        struct Reader: PreviewLoader {
            let steps: ScriptedLoader<String, String>
            let seen: Locked<[FetchPriority.Level?]>
            func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable (String) -> Void) async throws -> String {
                let live = FetchLoadContext.livePriority
                seen.withLock { $0.append(live?()?.level) }
                preview(try await steps.load("\(id)h"))
                seen.withLock { $0.append(live?()?.level) }
                return try await steps.load("\(id)f")
            }
        }
        let steps = ScriptedLoader<String, String>()
        let fetcher = try AsyncFetcher(clock: ManualClock(), loader: Reader(steps: steps, seen: seen))
        let full = Task { try await fetcher.value(for: 1) }
        await steps.waitForCalls(1)
        steps.succeed("1h", with: "head 1")
        await steps.waitForCalls(2)
        // A visible load until its head is in; the rest is speculative: blank cells' bytes go first
        #expect(seen.withLock { $0 } == [.visible, .speculative])
        steps.succeed("1f", with: "sharp 1")
        #expect(try await full.value == "sharp 1")
    }

    @Test func consumersAPreviewSatisfiesAreAnsweredOnTheWayAndTheLoadStopsWhenNobodyWantsMore() async throws {
        var loader = SteppedPreviewLoader()
        loader.progressive = true
        let fetcher = try makeFetcher(loader)
        // A full prefetch starts the load; a consumer that a preview satisfies joins it
        fetcher.prefetch([1])
        await loader.steps.waitForCalls(1)
        let heard = Heard()
        fetcher.fetchAsync(1, quality: .preview) { heard.add("\($0)") }
        // The prefetch is withdrawn: only the consumer holds the load
        fetcher.cancelFetch(1)
        loader.steps.succeed("1h", with: "head 1")
        await heard.wait(for: 1)
        #expect(heard.entries == ["success(\"head 1\")"])
        // Nobody wants the full value any more: the load is cancelled before its rest
        await loader.steps.waitForCancellations(1)
        #expect(loader.steps.cancelledIDs == ["1f"])
        #expect(fetcher.fetchedData(for: 1) == "head 1", "the preview stays cached")
        check(fetcher)
    }

    @Test func aPreviewRequestToALoaderWithoutPreviewsGetsTheFullValue() async throws {
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try AsyncFetcher(clock: ManualClock(), loader: loader)
        fetcher.prefetch([1], quality: .preview)
        await loader.waitForCalls(1)
        loader.succeed(1, with: "one")
        #expect(try await fetcher.value(for: 1, quality: .preview) == "one")
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == "one", "a plain loader's values are full")
        fetcher.state.withLock { $0._checkInvariants() }
    }

    @Test func aPreviewLoadThatBringsTheFullValueIsKeptAtFullQualityAndAnswersAFullRequestWithNoSecondLoad() async throws {
        let loader = DiskFirstPreviewLoader(onDisk: [1])
        let fetcher = try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), loader: loader)
        fetcher.prefetch([1, 2], quality: .preview)
        await loader.steps.waitForCalls(2)
        // A cell wants both in full while their preview loads run: each load is upgraded
        let full1 = Task { try await fetcher.value(for: 1) }, full2 = Task { try await fetcher.value(for: 2) }
        while fetcher.state.withLock({ $0.consumers.count }) < 2 { await Task.yield() }
        #expect(loader.steps.succeed("1p", with: "whole 1"))
        #expect(loader.steps.succeed("2p", with: "blurry 2"))
        // Item 1's preview load said it brought the full value: that answers the full request
        #expect(try await full1.value == "whole 1")
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == "whole 1")
        // Item 2's did not: its load goes on for the full value, as before
        await loader.steps.waitForCalls(3)
        #expect(loader.steps.calledIDs.sorted() == ["1p", "2f", "2p"])
        #expect(loader.steps.succeed("2f", with: "sharp 2"))
        #expect(try await full2.value == "sharp 2")
        #expect(fetcher.statistics.loadsStarted == 2)
        check(fetcher)
    }

    @Test func aPreviewPrefetchThatBringsTheFullValueGoesToTheStoreAsFull() async throws {
        let loader = DiskFirstPreviewLoader(onDisk: [1])
        let store = InMemoryDataStore<Int, String>()
        let events = Heard()
        let fetcher = try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), store: store,
                                       onEvent: { if case .storeWritten(let id) = $0 { events.add("stored \(id)") } }, loader: loader)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1p", with: "whole 1")
        #expect(try await fetcher.value(for: 1, quality: .preview) == "whole 1")
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == "whole 1")
        // A full request is a hit: no load
        #expect(try await fetcher.value(for: 1) == "whole 1")
        // And the store holds it as a full value (written after delivery: wait for its event)
        await events.wait(for: 1)
        #expect(try await store.value(for: 1) == "whole 1")
        #expect(fetcher.statistics.loadsStarted == 1)
        #expect(loader.steps.calledIDs == ["1p"])
        check(fetcher)
    }

    @Test func aLoadReadsTheQualityItsInterestsWantNow() async throws {
        let loader = QualityReadingLoader()
        let fetcher = try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), loader: loader)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        let reader = try #require(loader.readers.withLock { $0[1] })
        // Started for a preview: that is what is wanted
        #expect(reader() == .preview)
        // A cell wants it in full while the preview is on the way
        let handle = fetcher.fetchAsync(1, quality: .full, preview: { _ in }) { _ in }
        #expect(reader() == .full)
        // Nothing wants it any more: nil
        handle?.cancel()
        fetcher.cancelPrefetching([1])
        #expect(reader() == nil)
        #expect(FetchLoadContext.liveQuality == nil, "outside a load there is no reader")
        fetcher.shutdown()
    }

    @Test func onlyFullValuesGoToTheStore() async throws {
        let loader = SteppedPreviewLoader()
        let store = InMemoryDataStore<Int, String>()
        let events = Heard()
        let fetcher = try makeFetcher(loader, store: store, events: events)
        fetcher.prefetch([1], quality: .preview)
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1p", with: "blurry 1")
        #expect(try await fetcher.value(for: 1, quality: .preview) == "blurry 1")
        #expect(try await store.value(for: 1) == nil, "a preview is not final: the store keeps only full values")
        let full = Task { try await fetcher.value(for: 1) }
        await loader.steps.waitForCalls(2)
        loader.steps.succeed("1f", with: "sharp 1")
        #expect(try await full.value == "sharp 1")
        // The write happens after delivery: wait for its event
        await events.wait(for: 1)
        #expect(events.entries == ["stored 1"])
        #expect(try await store.value(for: 1) == "sharp 1")
        check(fetcher)
    }

    @Test func aPreviewPrefetchNeverReplacesACachedFullValue() async throws {
        let loader = SteppedPreviewLoader()
        let fetcher = try makeFetcher(loader)
        let full = Task { try await fetcher.value(for: 1) }
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1f", with: "sharp 1")
        #expect(try await full.value == "sharp 1")
        fetcher.prefetch([1], quality: .preview)
        fetcher.updatePrefetching([(1, .prefetch)], destinations: [], qualities: [.preview], cancelling: [])
        #expect(loader.steps.calledIDs == ["1f"], "a cached full value answers a preview request")
        #expect(fetcher.fetchedData(for: 1, atLeast: .full) == "sharp 1")
        check(fetcher)
    }

    @Test func aLoadWhosePreviewArrivedYieldsItsSlotOnceToACellWithNoPreview() async throws {
        var loader = SteppedPreviewLoader()
        loader.progressive = true
        // One pool of slots: with preview slots, cell 2's first bytes would start beside cell 1 (the next test).
        let configuration = try FetcherConfiguration(maxConcurrentLoads: 1, previewSlots: 0)
        let fetcher = try AsyncFetcher(configuration: configuration, clock: ManualClock(), loader: loader)
        let heard = Heard()
        // Two cells on screen, one slot: cell 1 loads, cell 2 waits
        fetcher.fetchAsync(1, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        fetcher.fetchAsync(2, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        await loader.steps.waitForCalls(1)
        loader.steps.succeed("1h", with: "head 1")
        // Cell 1 shows its head, and its load yields: cell 2's starts before cell 1's rest
        await loader.steps.waitForCalls(3)
        #expect(loader.steps.calledIDs == ["1h", "1f", "2h"])
        await loader.steps.waitForCancellations(1)
        #expect(loader.steps.cancelledIDs == ["1f"])
        loader.steps.succeed("2h", with: "head 2")
        // Cell 2 has its head too; nobody waits without a preview, so it goes on to its rest
        await loader.steps.waitForCalls(4)
        #expect(loader.steps.calledIDs.last == "2f")
        loader.steps.succeed("2f", with: "sharp 2")
        // Then cell 1 resumes (once yielded, it never yields again)
        await loader.steps.waitForCalls(5)
        loader.steps.succeed("1h", with: "head 1")
        await loader.steps.waitForCalls(6)
        loader.steps.succeed("1f", with: "sharp 1")
        await heard.wait(for: 4)
        #expect(heard.entries == ["preview head 1", "preview head 2", "full success(\"sharp 2\")", "full success(\"sharp 1\")"])
        #expect(fetcher.statistics.loadsPreempted == 1)
        fetcher.state.withLock { $0._checkInvariants() }
    }

    @Test func onceAPreviewArrivesOnTheWayFullValuesFirstBytesTakePreviewSlots() async throws {
        var loader = SteppedPreviewLoader()
        loader.progressive = true
        let configuration = try FetcherConfiguration(maxConcurrentLoads: 1, previewSlots: 1)
        let fetcher = try AsyncFetcher(configuration: configuration, clock: ManualClock(), loader: loader)
        let heard = Heard()
        // Two cells on screen, one full value's slot: until a preview is seen on the way, cell 2 waits.
        fetcher.fetchAsync(1, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        fetcher.fetchAsync(2, quality: .full, preview: { heard.add("preview \($0)") }) { heard.add("full \($0)") }
        await loader.steps.waitForCalls(1)
        #expect(fetcher.statistics.inFlight == 1)
        loader.steps.succeed("1h", with: "head 1")
        // Cell 1's head came on the way: cell 2's first bytes start in the preview slot, and cell 1 goes on.
        await loader.steps.waitForCalls(3)
        #expect(Set(loader.steps.calledIDs) == ["1h", "1f", "2h"])
        #expect(fetcher.statistics.inFlight == 2 && fetcher.statistics.peakInFlight == 2)
        loader.steps.succeed("2h", with: "head 2")
        // Completing cell 2 needs the full value's slot, which cell 1 holds: its load waits again.
        await loader.steps.waitForCancellations(1)
        #expect(loader.steps.cancelledIDs == ["2f"])
        loader.steps.succeed("1f", with: "sharp 1")
        // Cell 1's slot frees and cell 2 resumes (this loader asks for its head again; a real one resumes after its bytes).
        await loader.steps.waitForCalls(5)
        #expect(loader.steps.calledIDs.last == "2h")
        loader.steps.succeed("2h", with: "head 2")
        await loader.steps.waitForCalls(6)
        loader.steps.succeed("2f", with: "sharp 2")
        await heard.wait(for: 4)
        #expect(heard.entries == ["preview head 1", "preview head 2", "full success(\"sharp 1\")", "full success(\"sharp 2\")"])
        #expect(fetcher.statistics.loadsPreempted == 1)
        fetcher.state.withLock { $0._checkInvariants() }
    }

    @Test func aBatchUpdateUpgradesAQueuedPreviewLoad() async throws {
        let loader = SteppedPreviewLoader()
        let configuration = try FetcherConfiguration(maxConcurrentLoads: 1, previewSlots: 0)
        let fetcher = try AsyncFetcher(configuration: configuration, clock: ManualClock(), loader: loader)
        // Item 1 holds the only slot; item 2 queues at preview quality, then is upgraded before it starts
        fetcher.updatePrefetching([(1, .prefetch), (2, .prefetch)], destinations: [], qualities: [.full, .preview], cancelling: [])
        await loader.steps.waitForCalls(1)
        fetcher.updatePrefetching([(1, .prefetch), (2, .prefetch)], destinations: [], qualities: [.full, .full], cancelling: [])
        loader.steps.succeed("1f", with: "sharp 1")
        await loader.steps.waitForCalls(2)
        #expect(loader.steps.calledIDs == ["1f", "2f"], "the upgraded load runs at full quality from its start")
        fetcher.state.withLock { $0._checkInvariants() }
    }
}

/// The controller's preview plan: full values for the screen, where a fling rests and what
/// arrives soon; previews for the rest, and nothing changes without a plan or a target that takes previews.
@Suite("Preview plan")
struct PreviewPlanTests {
    let rows = Rows(count: 100, height: 100)
    let fling = MotionPhase.decelerating(restingOffset: 3_000, rate: 0.998)

    func qualities(plan: PreviewPlan?, acceptsPreviews: Bool = true, conditions: NetworkConditions = NetworkConditions(),
                   state: ScrollState? = nil) -> [Int: FetchQuality] {
        let target = RecordingTarget<Int>()
        target.acceptsPreviews = acceptsPreviews
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [0..<3_300]), target: target)
        controller.previews = plan
        controller.networkConditions = conditions
        // The fling of `PrefetchControllerTests`: offset(t) = 3000·(1 − e^(−2.002 t)), rows 100 pt, a 300 pt viewport
        controller.update(state ?? frame(0, at: 0, velocity: 6_006, fling), geometry: rows)
        return Dictionary(uniqueKeysWithValues: target.lastUpdate.requests.map { ($0.item, $0.quality) })
    }

    @Test func aFlingPreviewsWhatArrivesBeforeAFullLoadCouldFinishAndLoadsTheRestInFull() throws {
        // Loads take 0.3 s (the fallback), more than the plan's 0.1 s: previews are worth it
        let q = qualities(plan: try PreviewPlan(fullWithin: .milliseconds(100)))
        // Row k arrives when the offset reaches 100k − 300: t = ln(3000 / (3300 − 100k)) / 2.002.
        // Rows 0-3 are on screen now, row 16 arrives at 0.284 s, row 17 at 0.314 s: before 0.3 s a
        // full load cannot be there, so a preview; from row 17 on, the full value can.
        #expect((0...16).allSatisfy { q[$0] == .preview })
        #expect((17...32).allSatisfy { q[$0] == .full })
    }

    @Test func quickLoadsAreAlwaysFull() throws {
        // Loads of 0.3 s are within the plan's 1 s: nothing is worth a preview
        let q = qualities(plan: .standard)
        #expect(!q.isEmpty && q.values.allSatisfy { $0 == .full })
    }

    @Test func anItemHeldAsAPreviewIsRequestedInFullAsItComesNear() throws {
        // A drag at a steady 100 pt/s from 0 over rows of 100 pt: row 5 arrives at t = 2 s
        let target = RecordingTarget<Int>()
        target.acceptsPreviews = true
        // Loads take 3 s: row 5 cannot be loaded in full by its arrival, so a preview first
        target.typicalLatency = .seconds(3)
        target.expectedLatency = .seconds(3)
        let controller = PrefetchController<Int>(policy: FixedPolicy(regions: [300..<1_300]), target: target)
        controller.previews = try PreviewPlan(fullWithin: .milliseconds(500))
        var t = 0.0
        var quality: [Double: FetchQuality] = [:]
        while t <= 1.8 {
            let before = target.updates.count
            controller.update(frame(t, at: 100 * t, velocity: 100, .dragging), geometry: rows)
            if target.updates.count > before, let request = target.lastUpdate.requests.last(where: { $0.item == 5 }) {
                quality[t] = request.quality
            }
            t = ((t + 0.05) * 100).rounded() / 100
        }
        // Requested as a preview at first (2 s away), then in full on the first frame within 0.5 s of its arrival
        #expect(quality[0] == .preview)
        #expect(quality.filter { $0.value == .full }.keys.sorted() == [1.5])
    }

    @Test func withoutAPlanOrATargetThatTakesPreviewsEveryRequestIsFull() throws {
        #expect(qualities(plan: nil).values.allSatisfy { $0 == .full })
        #expect(qualities(plan: try PreviewPlan(), acceptsPreviews: false).values.allSatisfy { $0 == .full })
    }

    @Test func lowDataModePreviewsEverythingButTheScreen() throws {
        // A slow drag: rows 0-2 on screen, the rows ahead arriving within seconds
        let q = qualities(plan: try PreviewPlan(fullWithin: .seconds(10)), conditions: NetworkConditions(isConstrained: true),
                          state: frame(0, at: 0, velocity: 100, .dragging))
        #expect((0...2).allSatisfy { q[$0] == .full })
        #expect(q.filter { $0.key > 2 }.values.allSatisfy { $0 == .preview })
        #expect(q.count > 3)
    }

    @Test func aNegativeHorizonIsRefusedNamingIt() {
        #expect(throws: PrefetchError.self) { try PreviewPlan(fullWithin: .milliseconds(-1)) }
        do { _ = try PreviewPlan(fullWithin: .milliseconds(-1)) } catch {
            #expect("\(error)".contains("PreviewPlan fullWithin is -0.001 seconds, but it must not be negative"))
        }
    }
}

@Suite("Preview requests through a fetcher's target")
struct PreviewTargetTests {
    @Test func aTargetSendsPreviewRequestsAsPreviewLoadsAndUpgradesThemWhenTheyTurnFull() async throws {
        let loader = SteppedPreviewLoader()
        let fetcher = try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), loader: loader)
        let target = fetcher.prefetchTarget { (row: Int) in row }
        #expect(target.acceptsPreviews)
        // Two rows share no id; row 1 is requested as a preview, row 2 in full
        target.updatePrefetching(PrefetchUpdate(requests: [
            PrefetchRequest(item: 1, priority: .prefetch, quality: .preview),
            PrefetchRequest(item: 2, priority: .prefetch),
        ]))
        await loader.steps.waitForCalls(2)
        #expect(Set(loader.steps.calledIDs) == ["1p", "2f"])
        // Row 1 comes near: requested again in full, while its preview loads: the same load goes on
        target.updatePrefetching(PrefetchUpdate(requests: [PrefetchRequest(item: 1, priority: .visible)]))
        loader.steps.succeed("1p", with: "blurry 1")
        await loader.steps.waitForCalls(3)
        #expect(loader.steps.calledIDs.last == "1f")
        #expect(fetcher.statistics.loadsStarted == 2)
        fetcher.state.withLock { $0._checkInvariants() }
    }

    @Test func anIdSharedByItemsIsLoadedInFullWhenAnyOfThemWantsItInFull() async throws {
        let loader = SteppedPreviewLoader()
        let fetcher = try AsyncFetcher(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: ManualClock(), loader: loader)
        // Rows 10 and 11 show the same photo, id 1; rows 20 and 21 id 2
        let target = fetcher.prefetchTarget { (row: Int) in row / 10 }
        target.updatePrefetching(PrefetchUpdate(requests: [
            PrefetchRequest(item: 10, priority: .prefetch, quality: .preview),
            PrefetchRequest(item: 11, priority: .prefetch),
            PrefetchRequest(item: 20, priority: .prefetch, quality: .preview),
            PrefetchRequest(item: 21, priority: .prefetch, quality: .preview),
        ]))
        await loader.steps.waitForCalls(2)
        #expect(Set(loader.steps.calledIDs) == ["1f", "2p"])
        fetcher.state.withLock { $0._checkInvariants() }
    }
}
