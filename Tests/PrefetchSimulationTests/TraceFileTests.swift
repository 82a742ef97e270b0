import Foundation
import Testing
@testable import PrefetchSimulation

@Suite struct TraceFileTests {
    private func parse(_ json: String) throws -> Scenario {
        try TraceFile.parse(Data(json.utf8), fileName: "trace.json")
    }

    private func error(_ json: String) -> String? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return "\(error)"
        }
    }

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
            == "trace.json: gestures[0].spin: unknown gesture \"spin\"; expected drag, fling, jump or pause")
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
}
