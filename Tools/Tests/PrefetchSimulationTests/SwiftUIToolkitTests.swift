import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import Testing
@testable import PrefetchSimulation

/// The SwiftUI binding in the lab (issue #34): the same view and gestures drive a
/// `ListPrefetcher` fed what `onScrollGeometryChange` and `onScrollPhaseChange` report.
@MainActor
@Suite struct SwiftUIToolkitTests {
    private func configuration(_ toolkit: Toolkit) throws -> SimulationConfiguration { try .fixed200ms(toolkit) }

    /// A drag, a fling, a rest, an animated scroll and a rest.
    private let gestures: [ScrollGesture] = [
        .pause(duration: 0.5), .drag(speed: 1_500, duration: 0.5), .fling(velocity: 3_000), .pause(duration: 1),
        .animate(item: 900, duration: 0.3), .pause(duration: 1),
    ]

    @Test(arguments: [ScenarioLayout.Kind.list, .grid])
    func aSwiftUIRunPlaysTheScenarioAndItsControllerSeesTheRowsOnScreen(kind: ScenarioLayout.Kind) async throws {
        let scenario = Scenario(name: "swiftui", layout: kind == .list ? .list() : .grid(), viewport: kind == .list ? .phoneList : .seedGrid,
                                motion: .gestures(gestures))
        var restFrames = 0, movingFrames = 0, aheadWhileMoving = 0
        var offScreenAtRest: [Int] = []
        let simulation = try await Simulator.play(scenario, configuration: configuration(.swiftui),
                                                  policy: PrefetchPolicies.adaptive) { simulation, view in
            let app = simulation.app
            guard let controller = app.listFeed?.controller, view.currentTime > 0 else { return }
            let visible = app.visibleItems
            if view.isDragging || view.isDecelerating {
                movingFrames += 1
                // Moving down: the plan reaches past the screen's last row.
                if let last = visible.last, app.plannedItems.contains(where: { $0 > last }) { aheadWhileMoving += 1 }
            } else if !view.isScrollAnimating {
                restFrames += 1
                offScreenAtRest += visible.filter { controller.priority(for: $0).level != FetchPriority.visible.level }
            }
        }
        let app = simulation.app
        // Then the UIKit prefetcher is gone, the list prefetcher planned, and nothing went wrong
        #expect(app.prefetcher == nil)
        #expect(app.listFeed != nil)
        #expect(app.prefetchProblems.isEmpty, "\(app.prefetchProblems.map(\.message))")
        #expect(app.visibleItems.contains(900) || app.visibleItems.first.map { $0 >= 880 } == true, "landed at \(app.visibleItems)")
        // and at rest every row on screen is one the controller holds at visible priority
        #expect(restFrames > 60)
        #expect(offScreenAtRest.isEmpty, "rows on screen not visible to the controller: \(Set(offScreenAtRest).sorted().prefix(10)) and \(max(Set(offScreenAtRest).count - 10, 0)) more")
        // and while the finger or the fling moves the content, the plan reaches ahead of it
        #expect(movingFrames > 10)
        #expect(aheadWhileMoving * 2 > movingFrames, "\(aheadWhileMoving) of \(movingFrames) moving frames planned ahead")
        #expect(simulation.app.meter.readiness.displayed > 0)
    }

    @Test func aSwiftUIRunRepeatsAndDiffersFromUIKitOnlyInTheBinding() async throws {
        let scenario = StandardSuite.scenario(.repeatedFlings, layout: .list)
        let first = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.swiftui))
        let second = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.swiftui))
        #expect(first.readiness == second.readiness)
        let uikit = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.uikit))
        // The same gestures show the same cells
        #expect(uikit.displayed == first.displayed)
    }

    @Test func theDefaultIsUIKitAndAnUnknownToolkitIsRefusedByName() throws {
        #expect(SimulationConfiguration().toolkit == .uikit)
        #expect(try Toolkit(parsing: "swiftui") == .swiftui)
        #expect(throws: SimulationError.self) { try Toolkit(parsing: "SwiftUI") }
        do {
            _ = try Toolkit(parsing: "appkit")
            Issue.record("appkit was accepted")
        } catch {
            #expect("\(error)".contains("'appkit'") && "\(error)".contains("uikit, swiftui"), "\(error)")
        }
        let app = try SampleApp(layout: .list(itemCount: 100), viewport: .phoneList, fetcher: AsyncFetcher<Int, Int> { $0 },
                                meter: ReadinessMeter(now: { 0 }), identifier: { $0 })
        #expect(app.prefetcher != nil && app.listFeed == nil)
        app.use(.uikit)
        #expect(app.prefetcher != nil && app.listFeed == nil)
        app.use(.swiftui)
        #expect(app.prefetcher == nil && app.listFeed != nil)
        app.finish()
    }
}
