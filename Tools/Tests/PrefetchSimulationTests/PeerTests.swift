import Foundation
import Testing
import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting
@testable import PrefetchSimulation

/// The peers' windows from hand-computed contexts, their names on the bench, and their
/// prefetchers' caps in runs of the app loop.
@MainActor
@Suite struct PeerTests {
    /// An 800-point viewport at 1,000 in content 10,000 long.
    private func context(
        _ lower: Double = 1_000, length: Double = 800, content: Double = 10_000, velocity: Double = 0, phase: MotionPhase = .idle,
        heading: Int? = nil
    ) -> ScrollContext {
        ScrollContext(viewport: lower..<(lower + length), contentLength: content, velocity: velocity, phase: phase, heading: heading)
    }

    private func window(_ peer: PeerModel, _ geometry: PeerGeometry = .rows(of: 100), latency: LatencyProfile = .lte) -> PeerWindow {
        peer.window(geometry: geometry, latency: latency.model)
    }

    /// Apple's sample's grid in its viewport: 2 columns of 150×100 items, 10 points apart.
    private var grid: PeerGeometry { PeerGeometry(itemsPerLine: 2, firstLine: 0, pitch: 110, extent: 100) }

    @Test func thePeersHaveStableNamesAndTheBenchFindsThem() throws {
        #expect(SimulationPolicy.peers.map(\.name) == ["nuke", "kingfisher", "sdwebimage", "flashlist", "compose", "flutter", "chrome", "glide"])
        #expect(try SimulationPolicy.named("nuke").name == "nuke")
        #expect(try SimulationPolicy.named("adaptive").name == "adaptive")
        #expect(throws: SimulationError(
            "unknown policy 'bogus'; expected one of none, uikitLike, textureLike, adaptive, clairvoyant, clairvoyant-1s, or a peer: nuke, kingfisher, sdwebimage, flashlist, compose, flutter, chrome, glide")) {
            try SimulationPolicy.named("bogus")
        }
        // The suite's standard list is unchanged: the peers run only when asked for.
        #expect(!SimulationPolicy.standard.contains { $0.name == "nuke" })
    }

    @Test func policiesAreFoundByTheNamesUsersType() throws {
        #expect(PrefetchPolicies.names == ["none", "uikitLike", "textureLike", "adaptive"])
        for name in PrefetchPolicies.names { #expect(try PrefetchPolicies.named(name).name == name) }
        #expect { try PrefetchPolicies.named("fast") } throws: {
            ($0 as? PrefetchError)?.message == "unknown prefetch policy 'fast'; expected one of none, uikitLike, textureLike, adaptive"
        }
    }

    @Test func theGridGeometryIsFlowLayouts() throws {
        #expect(try PeerGeometry.of(.grid(), in: .seedGrid) == grid)
        #expect(try PeerGeometry.of(.list(), in: .phoneList) == .rows(of: 66))
        #expect(try PeerGeometry.of(.seedSample(), in: Viewport(width: 375, height: 600))
                == PeerGeometry(itemsPerLine: 2, firstLine: 10, pitch: 110, extent: 100))
    }

    @Test func theUIKitDrivenPeersUseUIKitsWindow() {
        for peer in [PeerModel.nuke, .kingfisher, .sdWebImage] {
            for c in [context(), context(velocity: -900, phase: .dragging, heading: -1), context(0)] {
                #expect(window(peer).plan(for: c) == PrefetchPolicies.uikitLike.plan(for: c), "\(peer.name)")
            }
        }
        #expect(window(.nuke).plan(for: context()).regions == [1_800..<2_400])
    }

    @Test func flutterCachesTwoHundredFiftyPointsEachWay() {
        #expect(window(.flutter).plan(for: context()).regions == [750..<2_050])
        #expect(window(.flutter).plan(for: context(100)).regions == [0..<1_150])
        #expect(window(.flutter).plan(for: context(9_100, length: 900)).regions == [8_850..<10_000])
    }

    @Test func chromePicksItsMarginFromTheRoundTrip() throws {
        // lte and wifi: a round trip under 270 ms is 4G, 1,250 px; emerging (400 ms) is 3G, 2,500 px.
        #expect(window(.chrome, latency: .lte).plan(for: context(2_000)).regions == [750..<4_050])
        #expect(window(.chrome, latency: .wifi).plan(for: context(2_000)).regions == [750..<4_050])
        #expect(window(.chrome, latency: .emerging).plan(for: context(3_000)).regions == [500..<6_300])
        let boundary = try LatencyModel(.fixed(.milliseconds(270)))
        #expect(PeerModel.chrome.window(geometry: grid, latency: boundary).plan(for: context(3_000)).regions == [500..<6_300])
    }

    @Test func flashListSplitsTwiceItsDrawDistanceSeventyThirty() throws {
        // 2 × 250 = 500: 350 toward the latest motion, 150 the other way.
        #expect(window(.flashList).plan(for: context()).regions == [850..<2_150])
        #expect(window(.flashList).plan(for: context(heading: -1)).regions == [650..<1_950])
        // At the top the unused 150 behind goes ahead; at the end the unused part ahead goes behind.
        #expect(window(.flashList).plan(for: context(0)).regions == [0..<1_300])
        #expect(window(.flashList).plan(for: context(1_200, content: 2_000)).regions == [700..<2_000])
        // The viewport is projected one 16 ms frame ahead: 1,000 pt/s moves it 16 points.
        let moving = try #require(window(.flashList).plan(for: context(velocity: 1_000, phase: .dragging)).regions.first)
        #expect(abs(moving.lowerBound - 866) < 1e-9 && abs(moving.upperBound - 2_166) < 1e-9, "\(moving)")
    }

    @Test func glideLoadsTheTenItemsPastTheLastVisibleOne() {
        // A 333-point viewport on the grid: lines start every 110 points; the line at 330 is
        // partly visible, so the ten items are the five lines from 440 to 880.
        let ahead = window(.glide, grid).plan(for: context(0, length: 333))
        #expect(ahead.regions == [333..<930])
        // Toward the start: the five whole lines ending at or before 1,000 (at 540 … 980).
        let behind = window(.glide, grid).plan(for: context(1_000, length: 333, heading: -1))
        #expect(behind.regions == [490..<1_000])
        // On a list of 100-point rows, ten rows.
        #expect(window(.glide).plan(for: context(0, length: 350)).regions == [350..<1_350])
    }

    @Test func composeLoadsTheNextLineOnlyWhileScrolling() {
        let list = PeerGeometry.rows(of: 66)
        // At rest: nothing ("does not cache while the user is not scrolling").
        #expect(window(.compose, list).plan(for: context(0, length: 667)).regions.isEmpty)
        // Dragging down a list: 66 points is under 10 % of 667, so the window is 66.7 points; the
        // next row starts at 726 and reaches past it.
        let rows = window(.compose, list).plan(for: context(0, length: 667, velocity: 500, phase: .dragging))
        #expect(rows.regions == [667..<759])
        // On the grid the window is the 100-point item size (between 33.3 and 166.5).
        let lines = window(.compose, grid).plan(for: context(0, length: 333, velocity: 500, phase: .dragging))
        #expect(lines.regions == [333..<490])
        // Flinging up: the line above, nothing below.
        let up = window(.compose, grid).plan(
            for: context(1_000, length: 333, velocity: -2_000, phase: .decelerating(restingOffset: 200, rate: 0.998), heading: -1))
        #expect(up.regions == [900..<1_000])
    }

    /// Rows of 10 points in a 100-point viewport: rows 0-9 visible, 10-14 prepared ahead by the
    /// view (half a screen), UIKit's window to 175 (rows 10-17).
    private var shortRows: Scenario {
        Scenario(
            name: "short-rows", layout: ScenarioLayout(kind: .list, itemCount: 100, itemWidth: 0, itemHeight: 10, spacing: 0),
            viewport: Viewport(width: 100, height: 100), motion: .gestures([.pause(duration: 2)]))
    }

    /// Runs `peer` on `scenario` with a fixed 0.5 s latency and room for 64 loads, returning the
    /// fetcher's events in order and the prefetcher.
    private func run(
        _ peer: PeerModel, _ scenario: Scenario
    ) async throws -> (events: [FetchEvent<Int>], prefetcher: PeerPrefetcher<Int, SimulatedData>, result: SimulationResult) {
        var configuration = SimulationConfiguration()
        configuration.latency = try LatencyModel(.fixed(.milliseconds(500)))
        configuration.retry = .none
        configuration.maxConcurrentLoads = 64
        let events = Locked([FetchEvent<Int>]())
        let simulation = try Simulation(
            scenario, policy: PeerPolicy(model: peer), configuration: configuration, identifier: { $0 }, item: { $0 },
            value: { SimulatedData(item: $0) }, onEvent: { event in events.withLock { $0.append(event) } })
        let prefetcher = try peer.install(on: simulation)
        let result = try await simulation.run()
        return (events.withLock { $0 }, prefetcher, result)
    }

    /// The most loads of `items` in flight at once, from the fetcher's events.
    private func peakLoads(of items: Set<Int>, in events: [FetchEvent<Int>]) -> (peak: Int, started: Int) {
        var running = Set<Int>(), peak = 0, started = 0
        for event in events {
            switch event {
            case .loadStarted(let id) where items.contains(id):
                running.insert(id)
                started += 1
                peak = max(peak, running.count)
            case .loadCompleted(let id, _), .loadCancelled(let id), .loadFailed(let id, _, willRetry: false):
                running.remove(id)
            default:
                break
            }
        }
        return (peak, started)
    }

    @Test func nukeNeverRunsMoreThanTwoPrefetchesAtOnce() async throws {
        // Given rows 15-17, which only the prefetcher loads (no cell holds them), and room in the
        // fetcher for every load at once
        let (events, prefetcher, _) = try await run(.nuke, shortRows)
        // Then Nuke's prefetcher ran at most two, and the fetcher's events show at most two of
        // those rows loading at once, though all three were loaded
        #expect(prefetcher.peakRunning == 2)
        let rows = peakLoads(of: [15, 16, 17], in: events)
        #expect(rows.started == 3)
        #expect(rows.peak == 2)
    }

    @Test func aPeerWithoutACapStartsItsWholeWindowAtOnce() async throws {
        // Flutter: 250 points below a 100-point viewport of 10-point rows are rows 10-34, every
        // one loading at the first frame (no cap; the fetcher has room for 64)
        let (events, prefetcher, _) = try await run(.flutter, shortRows)
        let rows = peakLoads(of: Set(10...34), in: events)
        #expect(rows.started == 25)
        #expect(rows.peak == 25)
        #expect(prefetcher.peakRunning == 25)
    }

    @Test func kingfishersCapCountsEachCallOnItsOwn() async throws {
        // The first screen's window (rows 10-17) comes in one call: five at once
        let (events, prefetcher, _) = try await run(.kingfisher, shortRows)
        #expect(prefetcher.peakRunning == 5)
        // Rows 10-14 are held by prepared cells too; 15-17 wait for the first five to finish.
        let rows = peakLoads(of: [15, 16, 17], in: events)
        #expect(rows.started == 3)
        #expect(rows.peak == 3)
    }

    @Test func aRunOfTheSuiteWithThePeersReportsEveryPeer() async throws {
        let scenario = Scenario(
            name: "short-fling", layout: .list(itemCount: 400), viewport: .phoneList,
            motion: .gestures([.pause(duration: 0.3), .fling(velocity: 2_000), .pause(duration: 0.5)]))
        let run = try await SuiteRun([scenario], policies: [.policy(PrefetchPolicies.adaptive)] + SimulationPolicy.peers)
        #expect(run.results.map(\.policy) == ["adaptive"] + SimulationPolicy.peers.map(\.name))
        for peer in SimulationPolicy.peers.map(\.name) {
            #expect(run.text.contains(peer), "\(peer) is missing from the table")
        }
        // Every peer loaded something, and none outran the fetcher's cap.
        for result in run.results {
            #expect(result.loadsStarted > 0, "\(result.policy)")
            #expect(result.peakInFlight <= 6, "\(result.policy)")
        }
    }
}
