import Foundation
import Testing
@testable import PrefetchSimulation

@Suite struct TraceFileTests {
    private func parse(_ json: String) throws -> Scenario {
        try TraceFile.parse(Data(json.utf8), fileName: "trace.json")
    }

    private func error(_ json: String) -> String? { TraceFile.parseError(json) }

    @Test func readsSamplesAndGestures() throws {
        let samples = try parse("""
            {"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 100, "itemHeight": 66},
             "samples": [[0, 0], [1.5, 300]]}
            """)
        #expect(samples.name == "trace")
        #expect(samples.layout == ScenarioLayout(kind: .list, itemCount: 100, itemWidth: 0, itemHeight: 66, spacing: 0))
        #expect(samples.motion == .samples([OffsetSample(time: 0, offset: 0), OffsetSample(time: 1.5, offset: 300)]))
        let gestures = try parse("""
            {"name": "g", "viewport": {"width": 343, "height": 333},
             "layout": {"kind": "grid", "itemCount": 50, "itemWidth": 150, "itemHeight": 100},
             "gestures": [{"drag": {"speed": 100, "duration": 1}}, {"fling": {"velocity": -200}}, {"jump": {"item": 3}}, {"pause": {"duration": 0.5}}]}
            """)
        #expect(gestures.layout.spacing == 10)
        #expect(gestures.motion == .gestures([.drag(speed: 100, duration: 1), .fling(velocity: -200), .jump(item: 3), .pause(duration: 0.5)]))
    }

    /// Fuzzing regression (FuzzTraceFile, this stop): a grid whose columns-that-fit overflowed
    /// `Int` trapped in `contentLength` while the reader checked the samples against the content.
    @Test func extremeButFiniteGridSizesLoadWithoutATrap() throws {
        let wide = try parse("""
            {"viewport": {"width": 1e300, "height": 600}, "layout": {"kind": "grid", "itemCount": 10, "itemWidth": 1e-300, "itemHeight": 50},
             "samples": [[0, 0], [1, 0]]}
            """)
        // Ten items fit in one row: the content is one row tall plus the insets.
        #expect(wide.layout.contentLength(viewport: wide.viewport) == 50 + 2 * wide.layout.sectionInset)
        let many = try parse("""
            {"viewport": {"width": 343, "height": 333}, "layout": {"kind": "grid", "itemCount": 1000000000000, "itemWidth": 150, "itemHeight": 100},
             "samples": [[0, 0], [1, 500]]}
            """)
        #expect(many.layout.contentLength(viewport: many.viewport) > 1e13)
    }

    @Test func errorsNameThePathToTheBadField() {
        let base = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 10, "itemHeight": 66}"#
        #expect(error("{\(base), \"samples\": [[0, 0], [1, \"x\"]]}") == "trace.json: samples[1][1]: expected a number, got a string")
        #expect(error("{\(base), \"samples\": [[1, 0], [0.5, 10]]}")
            == "trace.json: samples[1][0]: time 0.5 is before the previous sample's 1.0; samples must be in time order")
        #expect(error("{\(base), \"samples\": [[0, true]]}") == "trace.json: samples[0][1]: expected a number, got a boolean")
        #expect(error("{\(base), \"gestures\": [{\"spin\": {}}]}")
            == "trace.json: gestures[0].spin: unknown gesture \"spin\"; expected drag, fling, jump, pause, animate, statusBarTap, restore, rotate, insertAbove or deleteAbove")
        #expect(error("{\(base), \"gestures\": [{\"jump\": {\"item\": 99}}]}") == "trace.json: gestures[0]: jump item 99 is out of range 0..<10")
        #expect(error(#"{"viewport": {"width": 375}, "layout": {}, "samples": []}"#) == "trace.json: viewport.height: is missing; expected a number")
        #expect(error(#"{"viewport": {"width": 375, "height": 1}, "layout": {"kind": "table"}, "samples": []}"#)
            == "trace.json: layout.kind: unknown kind \"table\"; expected \"grid\" or \"list\"")
        #expect(error("{\(base)}") == "trace.json: samples: is missing; a trace needs \"samples\" or \"gestures\"")
        #expect(error("[1, 2]") == "trace.json: expected a JSON object at the top level, got an array")
        #expect((error("{nope") ?? "").hasPrefix("trace.json: is not valid JSON"))
        #expect(error(#"{"viewport": {"width": -3, "height": 1}, "layout": {"kind": "list", "itemCount": 1, "itemHeight": 1}, "samples": [[0, 0]]}"#)
            == "trace.json: viewport.width: -3.0 must be a finite number greater than 0")
    }

    /// Every sample's offset lies in the content, not only a touch-up's resting offset: a
    /// recording over a 100,000-item feed written with a 1,000-item layout is refused.
    @Test func aSamplePastTheEndOfTheContentIsRefused() throws {
        // 100 rows of 66 points in a 667-point viewport: offsets 0...5933.
        let base = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 100, "itemHeight": 66}"#
        #expect(error("{\(base), \"samples\": [[0, 0], [0.5, 400], [1.2, 7000], [2, 100]]}")
            == "trace.json: samples[2][1]: offset 7000.0 at 1.2 s is outside the content; every sample's offset must lie in 0.0...5933.0 "
                + "(give or take 0.5 pt), the offsets of 100 items of this layout in a 667.0-point viewport")
        #expect(error("{\(base), \"samples\": [[0, 0, \"idle\"], [0.5, 0, \"touching\"], [0.8, 180, \"decelerating\", 1179], [1.4, 5500000, \"decelerating\"], [3, 1179, \"idle\"]]}")
            == "trace.json: samples[3][1]: offset 5500000.0 at 1.4 s is outside the content; every sample's offset must lie in 0.0...5933.0 "
                + "(give or take 0.5 pt), the offsets of 100 items of this layout in a 667.0-point viewport")
        #expect(error("{\(base), \"samples\": [[0, -3], [1, 0]]}")?.hasPrefix("trace.json: samples[0][1]: offset -3.0 at 0.0 s is outside the content") == true)
        #expect(error("{\(base), \"samples\": [[0, 0], [1, 5933.6]]}")?.hasPrefix("trace.json: samples[1][1]: offset 5933.6 at 1.0 s") == true)
        // Half a point either way, for offsets rounded to the pixel grid, loads.
        #expect(error("{\(base), \"samples\": [[0, -0.5], [1, 5933.5], [2, 5933]]}") == nil)
        // Content shorter than the viewport: only offset 0 (give or take the tolerance).
        let short = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 10, "itemHeight": 66}"#
        #expect(error("{\(short), \"samples\": [[0, 0], [1, 10]]}")?.contains("must lie in 0.0...0.0") == true)
        // The writer refuses such a recording too, so it never writes a trace the reader refuses.
        let layout = ScenarioLayout(kind: .list, itemCount: 100, itemWidth: 0, itemHeight: 66, spacing: 0)
        let past = Scenario(name: "past", layout: layout, viewport: Viewport(width: 375, height: 667),
                            motion: .samples([OffsetSample(time: 0, offset: 0), OffsetSample(time: 1, offset: 6000)]))
        #expect(throws: SimulationError.self) { try TraceFile.encode(past) }
    }
}

@Suite struct TraceFileMomentTests {
    private let base = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 100, "itemHeight": 66}"#

    private func parse(_ gestures: String) throws -> Scenario {
        try TraceFile.parse(Data("{\(base), \"gestures\": [\(gestures)]}".utf8), fileName: "trace.json")
    }

    private func error(_ gestures: String) -> String? {
        do {
            _ = try parse(gestures)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func readsTheMomentsAppsMake() throws {
        let scenario = try parse("""
            {"animate": {"item": 90}}, {"animate": {"item": 5, "duration": 0.5}}, {"statusBarTap": {}}, {"restore": {"offset": 1200}},
            {"fling": {"velocity": 5000, "for": 0.4}}, {"rotate": {"width": 667, "height": 375}}, {"fling": {"velocity": 300}},
            {"insertAbove": {"count": 5, "after": 0.2}}, {"deleteAbove": {"count": 2}}
            """)
        #expect(scenario.motion == .gestures([
            .animate(item: 90, duration: 0.3), .animate(item: 5, duration: 0.5), .statusBarTap, .restore(offset: 1_200),
            .flingFor(velocity: 5_000, duration: 0.4), .rotate(width: 667, height: 375), .fling(velocity: 300),
            .insertAbove(count: 5, after: 0.2), .deleteAbove(count: 2, after: nil),
        ]))
    }

    @Test func aTraceOfGesturesMayBounce() throws {
        let bouncing = try TraceFile.parse(Data("{\(base), \"bounces\": true, \"gestures\": [{\"drag\": {\"speed\": -700, \"duration\": 0.6}}]}".utf8),
                                           fileName: "trace.json")
        #expect(bouncing.bounces)
        #expect(try parse(#"{"pause": {"duration": 1}}"#).bounces == false)
        let error = TraceFile.parseError
        #expect(error("{\(base), \"bounces\": \"yes\", \"gestures\": []}") == "trace.json: bounces: expected true or false, got a string")
        #expect(error("{\(base), \"bounces\": 1, \"gestures\": []}") == "trace.json: bounces: expected true or false, got 1")
        #expect(error("{\(base), \"bounces\": true, \"samples\": [[0, 0]]}")
            == "trace.json: bounces: applies to a trace of gestures; a trace of samples has no overscroll (its offsets lie in the content)")
    }

    @Test func badMomentsAreRejectedNamingThePathAndTheRule() {
        #expect(error(#"{"animate": {"item": 100}}"#) == "trace.json: gestures[0].animate.item: item 100 is out of range 0..<100")
        #expect(error(#"{"animate": {"item": 1, "duration": 0}}"#)
            == "trace.json: gestures[0].animate.duration: 0.0 s is out of range; an animated scroll takes 0.05 to 5.0 s")
        #expect(error(#"{"animate": {}}"#) == "trace.json: gestures[0].animate.item: is missing; expected a number")
        #expect(error(#"{"statusBarTap": {"offset": 3}}"#) == "trace.json: gestures[0].statusBarTap: takes no fields; expected {}, got [\"offset\"]")
        #expect(error(#"{"restore": {"offset": -5}}"#)
            == "trace.json: gestures[0].restore.offset: -5.0 must be a finite number of points, at least 0 (it is clamped to the content)")
        #expect(error(#"{"rotate": {"width": 0, "height": 375}}"#) == "trace.json: gestures[0].rotate.width: 0.0 must be a finite number greater than 0")
        #expect(error(#"{"rotate": {"width": 667}}"#) == "trace.json: gestures[0].rotate.height: is missing; expected a number")
        #expect(error(#"{"insertAbove": {"count": 0}}"#) == "trace.json: gestures[0].insertAbove.count: 0 items is out of range; use 1 to 100000")
        #expect(error(#"{"deleteAbove": {"count": 3, "after": -0.5}}"#)
            == "trace.json: gestures[0].deleteAbove.after: -0.5 must be a finite number of seconds, at least 0")
        #expect(error(#"{"fling": {"velocity": 100, "for": -1}}"#)
            == "trace.json: gestures[0].fling.for: -1.0 must be a finite number of seconds, at least 0")
    }

    @Test func oldTracesReadTheSame() throws {
        let scenario = try parse(#"{"fling": {"velocity": 300}}, {"jump": {"item": 3}}"#)
        #expect(scenario.motion == .gestures([.fling(velocity: 300), .jump(item: 3)]))
    }
}
