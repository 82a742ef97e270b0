import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import Testing
@testable import PrefetchSimulation

/// Rows of different heights (issue #35): the layout, the trace format, the SwiftUI binding's
/// measurements, the peers' rows and the moments suite's `variable-rows` scenario.
@MainActor
@Suite struct VariableRowsTests {
    private func configuration(_ toolkit: Toolkit = .uikit) throws -> SimulationConfiguration { try .fixed200ms(toolkit) }

    private func app(_ layout: ScenarioLayout) throws -> SampleApp<Int, Int> {
        try SampleApp(layout: layout, viewport: .phoneList, fetcher: AsyncFetcher<Int, Int> { $0 }, meter: ReadinessMeter(now: { 0 }),
                      identifier: { $0 })
    }

    /// The frames of items `0..<count` as the app's view lays them out.
    private func frames(_ app: SampleApp<Int, Int>, through length: Double) -> [(item: Int, frame: CGRect)] {
        var frames: [(item: Int, frame: CGRect)] = []
        app.forEachItem(in: CGRect(x: 0, y: 0, width: 375, height: length)) { frames.append(($0, $1)) }
        return frames
    }

    // MARK: The layout

    @Test func aFeedDrawsTextAndPhotoPostsBetween60And420PointsTheSameForTheSameSeed() {
        let feed = RowHeights.feed(seed: 1)
        let heights = (0..<10_000).map { feed.height(ofItem: $0) }
        #expect(heights.allSatisfy { RowHeights.feedRange.contains($0) && $0 == $0.rounded() })
        // Text posts (up to 160 pt) and photo posts (from 280 pt), about 60 % and 40 %
        let text = heights.filter { $0 <= 160 }.count, photos = heights.filter { $0 >= 280 }.count
        #expect(text + photos == heights.count)
        #expect((5_700...6_300).contains(text), "\(text) text posts")
        #expect(Set(heights).count > 50)
        // The same seed gives the same rows, another seed others; inserted rows (below 0) have heights too
        #expect((0..<100).map { RowHeights.feed(seed: 1).height(ofItem: $0) } == Array(heights.prefix(100)))
        #expect((0..<100).map { RowHeights.feed(seed: 2).height(ofItem: $0) } != Array(heights.prefix(100)))
        #expect(RowHeights.feedRange.contains(feed.height(ofItem: -7)))
        let layout = ScenarioLayout.feed()
        #expect(layout.itemHeight == (heights.reduce(0, +) / 10_000).rounded())
        #expect((190...220).contains(layout.itemHeight), "mean \(layout.itemHeight)")
        #expect(layout.contentLength(viewport: .phoneList) == heights.reduce(0, +))
    }

    @Test func theListLaysEachRowAtItsOwnHeight() throws {
        let layout = ScenarioLayout.feed(itemCount: 200, seed: 3)
        let app = try app(layout)
        app.step(to: 0)
        let heights = (0..<200).map { layout.rowHeight(ofItem: $0) ?? 0 }
        let total = heights.reduce(0, +)
        #expect(Double(app.view.contentSize.height) == total)
        #expect(Double(app.view.contentSize.height) == layout.contentLength(viewport: .phoneList))
        let laidOut = frames(app, through: total)
        #expect(laidOut.map(\.item) == Array(0..<200))
        var top = 0.0
        for (item, frame) in laidOut {
            #expect(Double(frame.minY) == top && Double(frame.height) == heights[item], "row \(item): \(frame)")
            #expect(frame.width == 375)
            top += heights[item]
        }
        // The rows on screen are those that meet the viewport, at their heights
        var onScreen: [Int] = []
        var y = 0.0
        for (item, height) in heights.enumerated() where y < 667 {
            onScreen.append(item)
            y += height
        }
        #expect(app.visibleItems == onScreen)
        app.finish()
    }

    @Test func oneHeightPerItemAndAnInsertAboveKeepEachRowsHeight() throws {
        let given: [Double] = [60, 300, 120, 420, 80]
        let app = try app(.list(itemCount: 5, rowHeights: .perItem(given)))
        app.step(to: 0)
        #expect(frames(app, through: 2_000).map { Double($0.frame.height) } == given)
        #expect(Double(app.view.contentSize.height) == 980)
        // Items arriving above take their own heights (wrapping around the list), and the old rows keep theirs
        try app.insertAbove(count: 2)
        app.step(to: 1.0 / 60)
        let after = frames(app, through: 2_000)
        #expect(after.map { Double($0.frame.height) } == [420, 80] + given)
        #expect(Double(app.view.contentSize.height) == 980 + 500)
        app.finish()
    }

    @Test func rowsOfOneHeightLayOutAsBefore() throws {
        let app = try app(.list(itemCount: 100))
        app.step(to: 0)
        let laidOut = frames(app, through: 667)
        #expect(laidOut.map(\.item) == Array(0...10))
        #expect(laidOut.allSatisfy { $0.frame.height == 66 && $0.frame.minY == Double($0.item) * 66 })
        app.finish()
    }

    @Test func aLayoutsRowHeightsAreCheckedNamingTheRule() {
        func message(_ layout: ScenarioLayout) -> String? {
            do {
                try layout.validate()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(message(.list(itemCount: 4, rowHeights: .perItem([60, 70, 80, -2]))) == "layout.rowHeights[3]: -2.0 must be a finite number greater than 0")
        #expect(message(.list(itemCount: 3, rowHeights: .perItem([60, .nan, 80]))) == "layout.rowHeights[1]: nan must be a finite number greater than 0")
        #expect(message(.list(itemCount: 3, rowHeights: .perItem([60, 70])))
            == "layout.rowHeights: has 2 heights, but the layout has 3 items; give one height per item")
        #expect(message(.list(itemCount: 2, rowHeights: .perItem([1e308, 1e308])))
            == "layout.rowHeights: the rows add up to inf points; the content must have a finite length")
        var grid = ScenarioLayout.grid()
        grid.rowHeights = .feed(seed: 1)
        #expect(message(grid) == "layout.rowHeights: a grid's items share one size; rows of their own heights are for a list")
        #expect(message(.feed()) == nil)
    }

    // MARK: The trace format

    private func parse(_ json: String) throws -> Scenario {
        try TraceFile.parse(Data(json.utf8), fileName: "trace.json")
    }

    private func traceError(_ json: String) -> String? { TraceFile.parseError(json) }

    @Test func aTraceGivesRowHeightsOnePerItemOrAsAProfile() throws {
        let perItem = try parse("""
            {"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 4, "rowHeights": [60, 300.5, 120, 420]},
             "samples": [[0, 0], [1, 233.5]]}
            """)
        #expect(perItem.layout.rowHeights == .perItem([60, 300.5, 120, 420]))
        // Without itemHeight, the typical row is the rows' mean
        #expect(perItem.layout.itemHeight == 225)
        #expect(perItem.layout.contentLength(viewport: perItem.viewport) == 900.5)
        let profile = try parse("""
            {"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 5000, "itemHeight": 200, "rowHeights": {"profile": "feed", "seed": 7}},
             "gestures": [{"fling": {"velocity": 3000}}]}
            """)
        #expect(profile.layout.rowHeights == .feed(seed: 7))
        #expect(profile.layout.itemHeight == 200)
        let seedless = try parse("""
            {"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 50, "rowHeights": {"profile": "feed"}},
             "gestures": [{"pause": {"duration": 1}}]}
            """)
        #expect(seedless.layout.rowHeights == .feed(seed: 1))
        // A sample past the rows' real end is outside the content
        #expect(traceError("""
            {"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 4, "rowHeights": [60, 300, 120, 420]},
             "samples": [[0, 0], [1, 300]]}
            """) == "trace.json: samples[1][1]: offset 300.0 at 1.0 s is outside the content; every sample's offset must lie in 0.0...233.0 (give or take 0.5 pt), the offsets of 4 items of this layout in a 667.0-point viewport")
    }

    @Test func badRowHeightsInATraceNameThePathAndTheRule() {
        let head = #"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 4, "itemHeight": 66, "rowHeights": "#
        let tail = #"}, "samples": [[0, 0]]}"#
        #expect(traceError(head + "[60, 70, 80, -2.0]" + tail) == "trace.json: layout.rowHeights[3]: -2.0 must be a finite number greater than 0")
        #expect(traceError(head + "[60, 70, 0, 80]" + tail) == "trace.json: layout.rowHeights[2]: 0.0 must be a finite number greater than 0")
        #expect(traceError(head + #"[60, "tall", 80, 90]"# + tail) == "trace.json: layout.rowHeights[1]: expected a number, got a string")
        #expect(traceError(head + "[60, 70]" + tail)
            == "trace.json: layout.rowHeights: has 2 heights, but the layout has 4 items; give one height per item")
        #expect(traceError(head + "66" + tail)
            == #"trace.json: layout.rowHeights: expected an array of heights in points, one per item, or a profile such as {"profile": "feed", "seed": 1}, got 66"#)
        #expect(traceError(head + #"{"profile": "chat"}"# + tail) == #"trace.json: layout.rowHeights.profile: unknown profile "chat"; expected "feed""#)
        #expect(traceError(head + #"{"profile": "feed", "seed": -1}"# + tail) == "trace.json: layout.rowHeights.seed: -1 must be a whole number, at least 0")
        #expect(traceError(head + #"{"profile": "feed", "sead": 3}"# + tail)
            == #"trace.json: layout.rowHeights.sead: unknown field; a profile takes "profile" and "seed""#)
        #expect(traceError(#"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "grid", "itemCount": 4, "itemWidth": 150, "itemHeight": 100, "rowHeights": [1, 2, 3, 4]}, "samples": [[0, 0]]}"#)
            == "trace.json: layout.rowHeights: a grid's items share one size; rows of their own heights are for a list")
        // Without rowHeights, itemHeight is required as before
        #expect(traceError(#"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 4}, "samples": [[0, 0]]}"#)
            == "trace.json: layout.itemHeight: is missing; expected a number")
    }

    @Test func aTraceWithRowHeightsWritesAndReadsBack() throws {
        for heights in [RowHeights.feed(seed: 9), .perItem((0..<30).map { 60 + Double($0 % 7) * 50.5 })] {
            let layout = ScenarioLayout.list(itemCount: 30, rowHeights: heights)
            let scenario = Scenario(name: "rows", layout: layout, viewport: .phoneList,
                                    motion: .samples([OffsetSample(time: 0, offset: 0), OffsetSample(time: 1, offset: 500)]))
            let text = String(decoding: try TraceFile.encode(scenario), as: UTF8.self)
            #expect(text.contains("\"rowHeights\": "))
            let back = try TraceFile.parse(Data(text.utf8), fileName: "rows.json")
            #expect(back.layout == layout)
        }
    }

    // MARK: The bindings

    /// The item numbers the controller holds at visible priority.
    private func heldVisible<ID>(_ controller: PrefetchController<ID>, number: (ID) -> Int?) -> [Int] {
        controller.requestedItems.filter { $0.priority.level == FetchPriority.visible.level }.compactMap { number($0.item) }.sorted()
    }

    /// Issue #35's goal for SwiftUI rows of different heights. At rest the controller holds at
    /// visible priority exactly the rows on screen; while the content moves it holds no other row
    /// there, and leaves out only rows on screen that the ranking finds leaving before a load could
    /// pay off (rows of one height do the same). Reporting the view's true offsets instead of the
    /// lazy stack's (every row at its true height, the unbuilt ones unknown to the prefetcher)
    /// broke both: 409 of 730 frames at rest showed other rows, and 5,441 rows off screen were held
    /// at visible while moving.
    @Test(arguments: ["adaptive", "uikitLike"])
    func underSwiftUITheControllersVisibleRowsAreTheRowsOnScreenOnEveryFrameAfterTheFirst(policyName: String) async throws {
        let policy: any PrefetchPolicy = policyName == "adaptive" ? PrefetchPolicies.adaptive : PrefetchPolicies.uikitLike
        let scenario = MomentsSuite.scenario(.variableRows, layout: .list)
        let simulation = try Simulator.simulation(scenario, configuration: configuration(.swiftui), policy: policy)
        var appeared = Set<Int>()
        simulation.app.onAppear = { appeared.insert($0) }
        var restFrames = 0, movingFrames = 0, jumped = false
        var atRest: [String] = [], offScreen: [String] = []
        _ = try await simulation.run { frame in
            let app = simulation.app
            let view = app.view
            guard let feed = app.listFeed else { return false }
            let onScreen = app.visibleItems.map(app.itemNumber)
            let visible = heldVisible(feed.controller) { $0 }
            if view.isDragging || view.isDecelerating || view.isScrollAnimating {
                movingFrames += 1
                let extra = Set(visible).subtracting(onScreen)
                if !extra.isEmpty, offScreen.count < 5 {
                    offScreen.append("frame \(frame.index) at \(view.contentOffset.y): on screen \(onScreen), also visible \(extra.sorted())")
                }
            } else {
                restFrames += 1
                if visible != onScreen, atRest.count < 5 {
                    atRest.append("frame \(frame.index) at \(view.contentOffset.y): on screen \(onScreen), visible \(visible)")
                }
            }
            if let first = onScreen.first, first > 300 { jumped = true }
            return true
        }
        let app = simulation.app
        #expect(restFrames > 500 && movingFrames > 1_000, "\(restFrames) frames at rest, \(movingFrames) moving")
        #expect(jumped, "the scenario jumps far down")
        #expect(atRest.isEmpty, "\(atRest.joined(separator: "\n"))")
        #expect(offScreen.isEmpty, "\(offScreen.joined(separator: "\n"))")
        // Only rows that were built (came on screen) were measured: every one of them
        let stack = try #require(app.listFeed?.stack)
        #expect(Set(stack.measured) == appeared)
        #expect(app.prefetchProblems.isEmpty, "\(app.prefetchProblems.map(\.message))")
    }

    @Test func aLazyStackPlacesRowsItHasNotBuiltAtItsEstimate() {
        var stack = LazyStackRows(estimate: 200)
        #expect(stack.start(ofItem: 10, first: 0) == 2_000)
        stack.measure(item: 3, length: 60)
        stack.measure(item: 12, length: 400)
        // Row 10 starts after nine estimated rows and row 3's 60 points; item 12's row lies after it
        #expect(stack.start(ofItem: 10, first: 0) == 9 * 200 + 60)
        #expect(stack.contentLength(first: 0, count: 20) == 18 * 200 + 60 + 400)
        // Rows inserted above (first below 0) start the list
        #expect(stack.start(ofItem: 0, first: -5) == 1_000)
        stack.measure(item: 3, length: 100)
        #expect(stack.start(ofItem: 10, first: 0) == 9 * 200 + 100)
        #expect(stack.isMeasured(12) && !stack.isMeasured(11))
    }

    @Test func underUIKitTheControllerSeesTheRowsWhereTheLayoutPutsThem() async throws {
        let scenario = MomentsSuite.scenario(.variableRows, layout: .list)
        let simulation = try Simulator.simulation(scenario, configuration: configuration(.uikit), policy: PrefetchPolicies.adaptive)
        var restFrames = 0
        var offScreen: [String] = []
        _ = try await simulation.run { frame in
            let app = simulation.app
            let view = app.view
            guard let controller = app.prefetcher?.controller, !view.isDragging, !view.isDecelerating, !view.isScrollAnimating else { return true }
            restFrames += 1
            let onScreen = app.visibleItems
            let visible = heldVisible(controller) { $0.item }
            if visible != onScreen, offScreen.count < 5 { offScreen.append("frame \(frame.index): on screen \(onScreen), visible \(visible)") }
            return true
        }
        #expect(restFrames > 300)
        #expect(offScreen.isEmpty, "\(offScreen.joined(separator: "\n"))")
        #expect(simulation.app.prefetchProblems.isEmpty)
    }

    @Test func theVariableRowsScenarioPlaysUnderBothToolkits() async throws {
        let scenario = MomentsSuite.scenario(.variableRows, layout: .grid)
        #expect(scenario.name == "variable-rows-list")
        #expect(scenario.layout.rowHeights == .feed(seed: 1))
        let uikit = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.uikit))
        let swiftui = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.swiftui))
        // The same gestures over the same rows show the same cells under either binding
        #expect(uikit.displayed > 120)
        #expect(swiftui.displayed == uikit.displayed)
        #expect(uikit.displayReadyRate > 0 && swiftui.displayReadyRate > 0)
        let again = try await Simulator.run(scenario, policy: .policy(PrefetchPolicies.adaptive), configuration: configuration(.swiftui))
        #expect(again.readiness == swiftui.readiness)
    }

    @Test func aPeerCountsRowsOfDifferentHeightsWhereTheyAre() throws {
        let layout = ScenarioLayout.list(itemCount: 5, rowHeights: .perItem([100, 300, 50, 200, 100]))
        let geometry = try PeerGeometry.of(layout, in: .phoneList)
        #expect(geometry.rowEdges == [0, 100, 400, 450, 650, 750])
        // From 120 toward the end: the first whole row starts at 400 (50 long), the second at 450 (200 long)
        #expect(geometry.reach(lines: 1, after: 120) == 425)
        #expect(geometry.reach(lines: 2, after: 120) == 550)
        #expect(geometry.reach(lines: 9, after: 120) == 700)
        // Toward the start from 460: the nearest whole row ends at 450 (rows 2, then 1)
        #expect(geometry.reach(lines: 1, before: 460) == 425)
        #expect(geometry.reach(lines: 2, before: 460) == 250)
        #expect(geometry.reach(lines: 1, before: 90) == nil)
        // Rows of one height reach as before
        let rows = PeerGeometry.rows(of: 100)
        #expect(rows.reach(lines: 2, after: 120) == 350)
        #expect(rows.reach(lines: 1, before: 460) == 350)
    }

    // MARK: Self-sizing rows (UIKit)

    @Test func aTraceMaySayItsRowsSizeThemselvesAndIsRefusedWhereThatMeansNothing() throws {
        let gestures = #"], "gestures": [{"drag": {"speed": 300, "duration": 1}}]}"#
        let head = #"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 400, "rowHeights": {"profile": "feed"}, "selfSizing": "#
        let scenario = try TraceFile.parse(Data((head + "true}" + gestures.dropFirst()).utf8), fileName: "trace.json")
        #expect(scenario.selfSizing && scenario.layout.rowHeights == .feed(seed: 1))
        #expect(try !TraceFile.parse(Data((head + "false}" + gestures.dropFirst()).utf8), fileName: "trace.json").selfSizing)
        #expect(traceError(head + "1}" + gestures.dropFirst()) == "trace.json: layout.selfSizing: expected true or false, got 1")
        #expect(traceError(head + "true}, \"samples\": [[0, 0], [1, 100]]}")
            == "trace.json: layout.selfSizing: applies to a trace of gestures; a trace of samples records offsets in the rows' true heights")
        #expect(traceError(#"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 40, "itemHeight": 66, "selfSizing": true}, "gestures": [{"pause": {"duration": 1}}]}"#)
            == "trace.json: layout.selfSizing: applies to a list of rows of different heights (layout.rowHeights); this layout's rows share one size")
    }

    /// Issue #35's "content-size growth from self-sizing cells", through the app's path: the table
    /// measures each row as it comes on screen (the content size changing under a drag and a
    /// fling, the offset moving when rows above the screen are measured after a jump), and the
    /// controller still reads the content's true speed on every steady frame and holds every row
    /// on screen. Before `layoutSettled` weighed the growth against the last speed, rows measured
    /// below a fling cancelled some of it: 4 of 483 steady frames read the fling at a quarter of its speed.
    @Test func selfSizingRowsKeepTheSpeedAndTheRowsOnScreenThroughTheAppsPath() async throws {
        let layout = ScenarioLayout.feed()
        var scenario = Scenario(name: "self-sizing", layout: layout, viewport: .phoneList, motion: .gestures([
            .pause(duration: 0.3), .drag(speed: 300, duration: 1), .fling(velocity: 9_000), .pause(duration: 0.5),
            .jump(item: 5_000), .pause(duration: 0.3), .drag(speed: -600, duration: 2), .fling(velocity: -8_000), .pause(duration: 0.5),
        ]))
        scenario.selfSizing = true
        let spy = SpyPolicy()
        let simulation = try Simulator.simulation(scenario, configuration: configuration(.uikit), policy: spy)
        var checked = 0, misread: [String] = [], missing: [String] = []
        var previous: Double?
        _ = try await simulation.run { frame in
            let app = simulation.app, view = app.view
            let truth = Double(view.velocity)
            defer { previous = truth }
            if let controller = app.prefetcher?.controller {
                for item in app.visibleItems where controller.requestedPriority(of: IndexPath(indexes: [0, item])) == nil {
                    missing.append("frame \(frame.index): row \(item)")
                }
            }
            // A steady frame: moving, and at the speed of the frame before within 5 %.
            guard let seen = spy.box.take(), let previous, abs(truth) > 50, abs(truth - previous) <= 0.05 * abs(previous) else { return true }
            checked += 1
            if abs(seen.velocity - truth) > max(0.05 * abs(truth), 30) { misread.append("frame \(frame.index): read \(seen.velocity), moving \(truth)") }
            return true
        }
        let table = try #require(simulation.app.view as? TableView)
        // The rows did size themselves: the content is neither every row at the estimate nor every row at its own height.
        let contentLength = Double(table.contentSize.height)
        #expect(contentLength != layout.contentLength(viewport: .phoneList))
        #expect(contentLength != Double(layout.itemCount) * layout.itemHeight)
        #expect(checked > 100)
        #expect(misread.isEmpty, "\(misread.prefix(8).joined(separator: "\n"))")
        #expect(missing.isEmpty, "\(missing.prefix(8).joined(separator: "\n"))")
        #expect(simulation.app.prefetchProblems.isEmpty)
    }
}

/// Adaptive, remembering the context of the last frame it planned.
private struct SpyPolicy: PrefetchPolicy {
    struct Box: Sendable {
        private let last = Locked<ScrollContext?>(nil)
        func put(_ context: ScrollContext) { last.withLock { $0 = context } }
        func take() -> ScrollContext? { last.withLock { value in defer { value = nil }; return value } }
    }
    let box = Box()
    var name: String { "adaptive" }
    func plan(for context: ScrollContext) -> PrefetchPlan {
        box.put(context)
        return PrefetchPolicies.adaptive.plan(for: context)
    }
}
