import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import Testing
@testable import PrefetchSimulation

/// The moments apps make besides a finger's drag and fling (issue #35), replayed through the
/// app's path: `SampleApp`'s code tells its `ScrollViewPrefetcher`, then moves the headless view.
@MainActor
@Suite struct MomentsTests {
    /// 10,000 rows of 66 pt in a phone's 375×667 view.
    private func list(_ gestures: [ScrollGesture]) -> Scenario {
        Scenario(name: "moment", layout: .list(), viewport: .phoneList, motion: .gestures(gestures))
    }

    private func configuration() throws -> SimulationConfiguration { try .fixed200ms() }

    private func path(_ item: Int) -> IndexPath { IndexPath(indexes: [0, item]) }

    @Test func anAnimatedScrollPlansItsDestinationFirstAndSkipsWhatItFliesPast() async throws {
        // Given a list at rest, when the app scrolls with animation to row 1,364 (about 90,000 pt down, 0.3 s)
        let destination = 1_364
        var destinationPriorities: [FetchPriority.Level?] = []
        var requestedInFlight = Set<Int>()
        var endedAnimating: Double?
        var idleAgain: Double?
        let simulation = try await Simulator.play(
            list([.pause(duration: 0.3), .animate(item: destination, duration: 0.3), .pause(duration: 1)]),
            configuration: configuration(), policy: PrefetchPolicies.adaptive
        ) { simulation, view in
            guard let controller = simulation.app.prefetcher?.controller else { return }
            if view.isScrollAnimating {
                destinationPriorities.append(controller.requestedPriority(of: self.path(destination))?.level)
                requestedInFlight.formUnion(controller.requestedItems.map(\.item.item))
            } else if !destinationPriorities.isEmpty, endedAnimating == nil {
                endedAnimating = view.currentTime
            }
            if let end = endedAnimating, idleAgain == nil, controller.requestedPriority(of: self.path(destination))?.level == .visible,
               view.contentOffset.y > 80_000 {
                idleAgain = view.currentTime - end
            }
        }
        // Then the destination is requested at visible priority from the animation's first frame on
        #expect(!destinationPriorities.isEmpty)
        #expect(destinationPriorities.allSatisfy { $0 == .visible })
        // and what the animation only flies past (rows 40 to 1,330) is at most one screen's worth (11 rows),
        #expect(requestedInFlight.filter { (40..<1_330).contains($0) }.count <= 11)
        // loaded by the controller's plan or by the cells themselves (a cell a frame shows for that
        // frame only asks at speculative priority, so its load waits behind the destination's)
        let flownPastLoads = simulation.loop.network.loadsStartedByItem.keys.filter { (40..<1_330).contains($0) }
        #expect(flownPastLoads.count <= 11, "\(flownPastLoads.sorted())")
        // and the view rests at its destination with the prefetcher idle there: no problem reported
        #expect(simulation.app.visibleItems.first == destination)
        #expect(simulation.app.prefetchProblems.isEmpty)
        #expect(idleAgain != nil)
    }

    @Test func aStatusBarTapGoesToTheTopAndPlansItFirst() async throws {
        var topPriorities: [FetchPriority.Level?] = []
        let simulation = try await Simulator.play(
            list([.restore(offset: 50_000), .pause(duration: 0.5), .statusBarTap, .pause(duration: 1)]),
            configuration: configuration(), policy: PrefetchPolicies.adaptive
        ) { simulation, view in
            if view.isScrollAnimating { topPriorities.append(simulation.app.prefetcher?.controller.requestedPriority(of: self.path(0))?.level) }
        }
        #expect(!topPriorities.isEmpty)
        #expect(topPriorities.allSatisfy { $0 == .visible })
        #expect(simulation.app.visibleItems.first == 0)
        #expect(simulation.app.prefetchProblems.isEmpty)
    }

    @Test func aRestoreIsAJumpAndTheScreenItLandsOnIsVisible() async throws {
        // When the app restores an offset 40,000 pt down without animation, a second after the last frame
        var checked = false
        let simulation = try await Simulator.play(
            list([.pause(duration: 1), .restore(offset: 40_000), .pause(duration: 1)]),
            configuration: configuration(), policy: PrefetchPolicies.adaptive
        ) { simulation, view in
            guard view.contentOffset.y == 40_000, let controller = simulation.app.prefetcher?.controller else { return }
            // Then from the first frame there every row on screen is requested at visible priority
            for item in simulation.app.visibleItems {
                #expect(controller.requestedPriority(of: self.path(item))?.level == .visible, "row \(item)")
            }
            checked = true
        }
        #expect(checked)
        #expect(simulation.app.prefetchProblems.isEmpty)
    }

    @Test func aRotationMidFlingKeepsTheScreenPlanned() async throws {
        var checked = 0
        let simulation = try await Simulator.play(
            list([.flingFor(velocity: 6_000, duration: 0.3), .rotate(width: 667, height: 375), .pause(duration: 2)]),
            configuration: configuration(), policy: PrefetchPolicies.adaptive
        ) { simulation, view in
            guard view.bounds.height == 375, !view.isDecelerating, let controller = simulation.app.prefetcher?.controller else { return }
            for item in simulation.app.visibleItems {
                #expect(controller.requestedPriority(of: self.path(item)) != nil, "row \(item) on screen is not requested")
            }
            checked += 1
        }
        #expect(checked > 0)
        #expect(simulation.app.view.bounds.width == 667)
        #expect(simulation.app.prefetchProblems.isEmpty)
    }

    @Test func insertsAboveDuringADragKeepThePlaceAndWithdrawNothingOnScreen() async throws {
        // Given a drag at 500 pt/s, when 50 rows arrive above 0.5 s into it (a diffable snapshot, the
        // offset following the content's growth in the same frame)
        var lastFirst: (number: Int, time: Double)?
        var jumps: [Int] = []
        var missing: [Int] = []
        let simulation = try await Simulator.play(
            list([.pause(duration: 0.5), .drag(speed: 500, duration: 1.5), .insertAbove(count: 50, after: 0.5), .pause(duration: 0.5)]),
            configuration: configuration(), policy: PrefetchPolicies.adaptive
        ) { simulation, view in
            let app = simulation.app
            guard let controller = app.prefetcher?.controller, let first = app.visibleItems.first else { return }
            let number = app.itemNumber(first)
            // Then the rows on screen stay put, by their stable numbers (a frame moves at most a row or two)
            if let last = lastFirst, view.currentTime > last.time { jumps.append(abs(number - last.number)) }
            lastFirst = (number, view.currentTime)
            // and every row on screen stays requested: nothing on screen is withdrawn
            for item in app.visibleItems where controller.requestedPriority(of: self.path(app.itemNumber(item))) == nil {
                missing.append(app.itemNumber(item))
            }
        }
        #expect(simulation.app.indexBase == -50)
        #expect(simulation.app.view.numberOfItemsInFirstSection == 10_050)
        #expect((jumps.max() ?? 99) <= 2)
        #expect(missing.isEmpty, "on screen but not requested: \(missing.prefix(10))")
        #expect(simulation.app.prefetchProblems.isEmpty)
    }

    /// Plays `gestures` on a list that rubber-bands and returns, per requested row, the frames in
    /// which the controller dropped it and later asked for it again, with the offsets seen.
    private func pull(_ gestures: [ScrollGesture]) async throws -> (churned: Set<Int>, offsets: [Double], problems: Int) {
        var scenario = list(gestures)
        scenario.bounces = true
        var held = Set<Int>(), dropped = Set<Int>(), churned = Set<Int>()
        var offsets: [Double] = []
        let simulation = try await Simulator.play(scenario, configuration: configuration(), policy: PrefetchPolicies.adaptive) { simulation, view in
            guard let controller = simulation.app.prefetcher?.controller else { return }
            offsets.append(Double(view.contentOffset.y))
            let now = Set(controller.requestedItems.map(\.item.item))
            churned.formUnion(now.intersection(dropped))
            dropped.formUnion(held.subtracting(now))
            dropped.subtract(now)
            held = now
        }
        return (churned, offsets, simulation.app.prefetchProblems.count)
    }

    @Test func aPullPastTheTopKeepsThePlan() async throws {
        // Given a list resting at the top with its look-ahead requested, when the finger pulls the
        // content 420 pt past the top (a pull to refresh) and lets it spring back
        let played = try await pull([.pause(duration: 1), .drag(speed: -700, duration: 0.6), .pause(duration: 1)])
        // Then the view did rubber-band (offsets below 0 reached the prefetcher)
        #expect((played.offsets.min() ?? 0) < -100)
        // and no requested row was withdrawn and requested again, with no problem reported
        #expect(played.churned.isEmpty, "withdrawn and requested again: \(played.churned.sorted().prefix(10))")
        #expect(played.problems == 0)
    }

    @Test func aPullPastTheBottomKeepsThePlan() async throws {
        let played = try await pull([.jump(item: 9_999), .pause(duration: 1), .drag(speed: 800, duration: 0.5), .pause(duration: 1)])
        #expect((played.offsets.max() ?? 0) > 10_000 * 66 - 667 + 50)
        #expect(played.churned.isEmpty, "withdrawn and requested again: \(played.churned.sorted().prefix(10))")
        #expect(played.problems == 0)
    }

    @Test func anInsertWithoutAnAppIsRefusedNamingTheGesture() throws {
        let view = try ScenarioLayout.list(itemCount: 10).makeView(viewport: .phoneList)
        var driver = GestureDriver(gestures: [.insertAbove(count: 3, after: nil)])
        #expect(throws: SimulationError.self) { try driver.input(to: view, at: 0, frameDuration: 1.0 / 60) }
    }

    @Test func theMomentsSuitePlaysThroughTheAppWithoutAProblem() async throws {
        // Every moment on a list and on the grid, but rows of different heights (sized by the app
        // or by themselves) on the list only
        #expect(MomentsSuite.all.count == 2 * MomentsSuite.Kind.allCases.count - 2)
        #expect(MomentsSuite.all.filter { $0.layout.rowHeights != nil }.map(\.name) == ["variable-rows-list", "self-sizing-list"])
        #expect(MomentsSuite.all.filter(\.selfSizing).map(\.name) == ["self-sizing-list"])
        #expect(Set(MomentsSuite.all.map(\.name)).count == MomentsSuite.all.count)
        for scenario in MomentsSuite.all {
            try scenario.validate()
            let simulation = try await Simulator.play(scenario, configuration: configuration(), policy: PrefetchPolicies.adaptive)
            #expect(simulation.app.prefetchProblems.isEmpty, "\(scenario.name)")
            #expect(simulation.app.meter.readiness.displayed > 0, "\(scenario.name)")
        }
    }

    @Test func theViewsEaseInOutCurveIsUIKits() {
        let curve = ScrollAnimationCurve.easeInOut
        #expect(curve.fraction(at: 0) == 0)
        #expect(abs(curve.fraction(at: 1) - 1) < 1e-9)
        // Symmetric about the middle, slow at both ends.
        #expect(abs(curve.fraction(at: 0.5) - 0.5) < 1e-9)
        #expect(abs(curve.fraction(at: 0.2) + curve.fraction(at: 0.8) - 1) < 1e-9)
        #expect(curve.slope(at: 0.02) < 0.2 && curve.slope(at: 0.5) > 1.5)
    }
}
