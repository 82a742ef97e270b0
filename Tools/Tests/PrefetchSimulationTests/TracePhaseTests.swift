import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing
@testable import PrefetchSimulation

@Suite struct TracePhaseTests {
    private static let header = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 100, "itemHeight": 66}"#

    private func error(_ samples: String) -> String? {
        do {
            _ = try TraceFile.parse(Data("{\(Self.header), \"samples\": \(samples)}".utf8), fileName: "t.json")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func readsPhasesAndRestingOffsetsAndOldFilesStillLoad() throws {
        let scenario = try TraceFile.parse(Data("""
            {\(Self.header), "samples": [[0, 0, "idle"], [0.5, 0, "touching"], [0.6, 50, "decelerating", 900], [1.5, 880, "decelerating"], [2, 900, "idle"]]}
            """.utf8))
        guard case .samples(let samples) = scenario.motion else { Issue.record("expected samples"); return }
        #expect(samples.map(\.phase) == [.idle, .touching, .decelerating, .decelerating, .idle])
        #expect(samples[2].restingOffset == 900 && samples[3].restingOffset == nil)
        let old = try TraceFile.parse(Data("{\(Self.header), \"samples\": [[0, 0], [1, 300]]}".utf8))
        #expect(old.motion == .samples([OffsetSample(time: 0, offset: 0), OffsetSample(time: 1, offset: 300)]))
    }

    @Test func aMissingRestingOffsetIsTheRunsLastOffset() throws {
        let scenario = try TraceFile.parse(Data("""
            {\(Self.header), "samples": [[0, 0, "touching"], [0.1, 40, "decelerating"], [0.5, 300, "decelerating"], [1, 310, "idle"]]}
            """.utf8))
        guard case .samples(let samples) = scenario.motion else { Issue.record("expected samples"); return }
        #expect(samples[1].restingOffset == 300)
    }

    @Test func badPhasesNameTheFileTheFieldAndTheRule() {
        // 100 rows of 66 pt in a 667 pt viewport: offsets 0...5933.
        #expect(error(#"[[0, 0, "touching"], [1, 10, "flying"]]"#)
            == #"t.json: samples[1][2]: unknown phase "flying"; expected touching, decelerating or idle"#)
        #expect(error(#"[[0, 0, "idle"], [1, 10, "decelerating"]]"#)
            == #"t.json: samples[1][2]: phase "decelerating" follows "idle"; a deceleration starts at touch-up, after "touching""#)
        #expect(error(#"[[0, 0, "decelerating", 10]]"#)
            == #"t.json: samples[0][2]: phase "decelerating" follows the start of the trace; a deceleration starts at touch-up, after "touching""#)
        #expect(error(#"[[0, 0, "touching"], [1, 10, "decelerating", 7000]]"#)
            == "t.json: samples[1][3]: resting offset 7000.0 is outside the content; it must lie in 0.0...5933.0")
        #expect(error(#"[[0, 0, "touching"], [1, 10, "decelerating", -1]]"#)?.contains("resting offset -1.0 is outside the content") == true)
        #expect(error(#"[[0, 0, "touching"], [1, 10, "touching", 50]]"#)
            == #"t.json: samples[1][3]: a resting offset is given only at touch-up, the first "decelerating" sample after "touching""#)
        #expect(error(#"[[0, 0, "touching"], [1, 10]]"#) == "t.json: samples[1][2]: is missing; once one sample carries a phase, every sample must")
        #expect(error(#"[[0, 0, 3]]"#) == "t.json: samples[0][2]: expected a phase name (touching, decelerating or idle), got 3")
    }

    /// Samples of a UIKit fling written out by hand from the formula
    /// `offset(t) = o + v/1000 · (r^ms − 1)/ln r`, independent of the inference code.
    private static func handMadeFling() -> [OffsetSample] {
        var samples: [OffsetSample] = []
        // At rest for 0.5 s, a 0.3 s drag at 600 pt/s, then a fling at 2,000 pt/s from t = 0.8, then rest.
        samples.append(OffsetSample(time: 0, offset: 0))
        samples.append(OffsetSample(time: 0.5, offset: 0))
        samples.append(OffsetSample(time: 0.65, offset: 90))
        samples.append(OffsetSample(time: 0.8, offset: 180))
        let r = 0.998
        for k in 1...30 {
            let ms = Double(k) * 100
            samples.append(OffsetSample(time: 0.8 + ms / 1000, offset: 180 + 2_000 / 1000 * (pow(r, ms) - 1) / log(r)))
        }
        let last = samples[samples.count - 1]
        samples.append(OffsetSample(time: last.time + 1, offset: last.offset))
        return samples
    }

    @Test func infersAFlingsDecelerationAndItsRestingOffset() {
        let samples = Self.handMadeFling()
        let phases = TracePhases.inferred(samples, offsetRange: 0...100_000)
        #expect(phases[0].phase == .idle && phases[1].phase == .touching && phases[2].phase == .touching)
        #expect(phases[3].phase == .decelerating)
        // 2,000 pt/s at r = 0.998 rests 2,000/1000/−ln(0.998) ≈ 999 pt further.
        let expected = 180 + 2.0 / -log(0.998)
        #expect(abs((phases[3].restingOffset ?? 0) - expected) < 1)
        #expect(phases[4...].dropLast(3).allSatisfy { $0.phase == .decelerating && $0.restingOffset == nil })
        #expect(phases.last?.phase == .idle)
        // Clamped to the content.
        #expect(TracePhases.inferred(samples, offsetRange: 0...500)[3].restingOffset == 500)
    }

    @Test func aSteadyDragAndASlowingDragAreNotFlings() {
        let steady = (0...30).map { OffsetSample(time: Double($0) / 60, offset: Double($0) * 10) }
        #expect(TracePhases.inferred(steady, offsetRange: 0...1_000).dropLast().allSatisfy { $0.phase == .touching })
        // Slowing linearly from 1,000 to 400 pt/s (not exponentially): no recognised rate fits.
        let slowing = (0...30).map { k -> OffsetSample in
            let t = Double(k) / 10
            return OffsetSample(time: t, offset: 1_000 * t - 100 * t * t)
        }
        #expect(TracePhases.inferred(slowing, offsetRange: 0...10_000).allSatisfy { $0.phase != .decelerating })
    }

    @Test func aFlingWhoseOffsetsAreRoundedToThePixelGridStaysOneFling() {
        let r = 0.998
        var samples = [OffsetSample(time: 0, offset: 0), OffsetSample(time: 0.5, offset: 0), OffsetSample(time: 0.6, offset: 60)]
        // From the touch-up at 0.6 s, 3,000 pt/s: 3.5 s of deceleration sampled at 30 Hz, on a 3x screen's pixel grid.
        for k in 1...105 {
            let ms = Double(k) * 1000 / 30
            let exact = 60 + 3_000 / 1000 * (pow(r, ms) - 1) / log(r)
            samples.append(OffsetSample(time: 0.6 + ms / 1000, offset: (exact * 3).rounded() / 3))
        }
        let stop = samples[samples.count - 1]
        // At rest for a second, then a drag at 300 pt/s.
        samples.append(OffsetSample(time: stop.time + 1, offset: stop.offset))
        for k in 1...6 { samples.append(OffsetSample(time: stop.time + 1 + Double(k) / 30, offset: stop.offset + Double(k) * 10)) }
        let phases = TracePhases.inferred(samples, offsetRange: 0...100_000)
        #expect(phases[1].phase == .touching && phases[2].phase == .decelerating)
        // 60 + 3,000 / 1000 / −ln(0.998) ≈ 1,558.5 pt, from the rounded offsets.
        #expect(abs((phases[2].restingOffset ?? 0) - (60 + 3 / -log(r))) < 5)
        // Slow speeds on the pixel grid no longer fall by the rate, but the samples stay on the curve.
        let fling = phases[2...107].map(\.phase)
        #expect(fling.allSatisfy { $0 == .decelerating }, "\(fling.filter { $0 != .decelerating }.count) fling samples read otherwise")
        #expect(phases[109...113].allSatisfy { $0.phase == .touching })
    }

    @Test func anIntervalFasterThanAnyFingerIsAJumpNotADrag() {
        // 40,000 pt in one 30 Hz interval: 1.2 million pt/s.
        let jump = [0, 0.5, 0.5 + 1.0 / 30, 1, 1.5].enumerated().map { i, t in OffsetSample(time: t, offset: i < 2 ? 0 : 40_000) }
        #expect(TracePhases.inferred(jump, offsetRange: 0...100_000).map(\.phase) == Array(repeating: .idle, count: 5))
        // 12,000 pt/s, the fastest drag in the generated traces, is still a drag.
        let fast = (0...6).map { OffsetSample(time: Double($0) / 30, offset: Double($0) * 400) }
        #expect(TracePhases.inferred(fast, offsetRange: 0...100_000).dropLast().allSatisfy { $0.phase == .touching })
    }

    @MainActor
    @Test func aJumpInATraceWithoutPhasesIsReplayedAsAJump() async throws {
        let header = #""viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 1000, "itemHeight": 66}"#
        let scenario = try TraceFile.parse(Data("""
            {\(header), "samples": [[0, 0], [0.5, 0], [0.5333, 40000], [1, 40000], [1.5, 40000]]}
            """.utf8))
        var offsets: [Double] = []
        _ = try await Simulator.play(scenario, configuration: SimulationConfiguration(), policy: PrefetchPolicies.none, inspect: { _, view in
            offsets.append(view.contentOffset.y)
        })
        // Inferred as a drag, the replay would scroll through the rows in between for a frame.
        #expect(offsets.contains(40_000))
        #expect(offsets.allSatisfy { $0 == 0 || $0 == 40_000 }, "offsets between the two: \(offsets.filter { $0 != 0 && $0 != 40_000 })")
    }

    @MainActor
    @Test func theReplayGivesTheControllerTheRestingOffset() async throws {
        let scenario = try TraceFile.parse(Data("""
            {\(Self.header), "samples": [[0, 0, "idle"], [0.5, 0, "touching"], [0.6, 60, "decelerating", 1200], [3, 1200, "idle"], [3.5, 1200, "idle"]]}
            """.utf8))
        var restingSeen: [Double] = []
        var phases: [String] = []
        var last = 0.0
        _ = try await Simulator.play(scenario, configuration: SimulationConfiguration(), policy: PrefetchPolicies.none, inspect: { _, view in
            last = view.contentOffset.y
            let name: String
            switch view.scrollState.phase {
            case .decelerating(let resting, _):
                restingSeen.append(resting)
                name = "decelerating"
            case .dragging: name = "dragging"
            case .idle: name = "idle"
            case .programmatic: name = "programmatic"
            }
            if phases.last != name { phases.append(name) }
        })
        #expect(phases == ["idle", "dragging", "decelerating", "idle"])
        #expect(!restingSeen.isEmpty && restingSeen.allSatisfy { abs($0 - 1200) < 1e-6 })
        #expect(abs(last - 1200) < 1e-6)
    }

    @Test func encodeThenParseGivesTheSameScenario() throws {
        let samples = TracePhases.inferred(Self.handMadeFling(), offsetRange: 0...5_933)
        let scenario = Scenario(name: "round \"trip\"", layout: .list(itemCount: 100), viewport: .phoneList, motion: .samples(samples))
        let data = try TraceFile.encode(scenario)
        let back = try TraceFile.parse(data)
        #expect(back.name == scenario.name && back.layout == scenario.layout && back.viewport == scenario.viewport)
        guard case .samples(let read) = back.motion else { Issue.record("expected samples"); return }
        #expect(read.count == samples.count)
        for (a, b) in zip(read, samples) {
            // Written in the shortest exact form; the JSON reader may round the last bit.
            #expect(abs(a.time - b.time) < 1e-9 && abs(a.offset - b.offset) < 1e-9 && a.phase == b.phase)
            #expect((a.restingOffset == nil) == (b.restingOffset == nil))
        }
        let grid = Scenario(name: "g", layout: .seedSample(itemCount: 50), viewport: .seedGrid, motion: .samples([OffsetSample(time: 0, offset: 0)]))
        #expect(try TraceFile.parse(TraceFile.encode(grid)).layout == grid.layout)
    }

    @MainActor
    @Test func contentLengthMatchesTheViews() async throws {
        for (layout, viewport) in [(ScenarioLayout.list(itemCount: 77), Viewport.phoneList), (.grid(itemCount: 101), .seedGrid), (.seedSample(itemCount: 33), .seedGrid)] {
            let scenario = Scenario(name: "c", layout: layout, viewport: viewport, motion: .samples([OffsetSample(time: 0, offset: 0)]))
            var range: ClosedRange<Double>?
            _ = try await Simulator.play(scenario, configuration: SimulationConfiguration(), policy: PrefetchPolicies.none, inspect: { _, view in
                range = view.contentOffsetRange
            })
            #expect(layout.offsetRange(viewport: viewport) == range)
        }
    }
}
