import Foundation
import PrefetchKit
import Testing
@testable import PrefetchSimulation

@Suite struct RecordReplayTests {
    /// Plays `scenario` through the app loop and returns the view's offset at each frame time.
    @MainActor
    private func offsets(_ scenario: Scenario, recorder: TraceRecorder? = nil) async throws -> [Double: Double] {
        var seen: [Double: Double] = [:]
        _ = try await Simulator.play(scenario, configuration: SimulationConfiguration(), policy: PrefetchPolicies.none, inspect: { _, view in
            let t = view.currentTime
            if seen[t] == nil { recorder?.record(view, at: t) }
            seen[t] = view.contentOffset.y
        })
        return seen
    }

    @MainActor
    @Test(arguments: [ScenarioLayout.Kind.list, .grid])
    func recordingThenReplayingGivesTheSameOffsets(kind: ScenarioLayout.Kind) async throws {
        // Drags, a fling from a drag, a fling from rest (a key press), a fling during a fling, a reversal, jumps.
        let gestures: [ScrollGesture] = [
            .pause(duration: 0.3), .drag(speed: 500, duration: 0.5), .fling(velocity: 2_500), .pause(duration: 0.5),
            .fling(velocity: 4_000), .pause(duration: 0.2), .fling(velocity: 3_000), .fling(velocity: 1_000), .pause(duration: 0.4),
            .drag(speed: -700, duration: 0.6), .fling(velocity: -1_500), .pause(duration: 0.3), .jump(item: 400), .pause(duration: 0.3), .jump(item: 0),
            .pause(duration: 0.3),
        ]
        let layout: ScenarioLayout = kind == .list ? .list(itemCount: 2_000) : .seedSample(itemCount: 2_000)
        let viewport: Viewport = kind == .list ? .phoneList : .seedGrid
        let live = Scenario(name: "session", layout: layout, viewport: viewport, motion: .gestures(gestures))
        let recorder = TraceRecorder(name: "session", layout: layout, viewport: viewport)
        let recorded = try await offsets(live, recorder: recorder)
        // Written and read back through the trace format, as `prefetch-demo --record` and `prefetch-bench --trace` do.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try recorder.write(to: file)
        let trace = try TraceFile.load(from: file)
        guard case .samples(let samples) = trace.motion else { Issue.record("expected samples"); return }
        #expect(samples.filter { $0.restingOffset != nil }.count == 5)  // five flings
        let replayed = try await offsets(trace)
        let lastSample = samples.last!.time
        var compared = 0
        for (t, offset) in recorded where t <= lastSample {
            guard let other = replayed[t] else { continue }
            compared += 1
            #expect(abs(other - offset) < 1e-6, "t = \(t): replayed \(other), recorded \(offset)")
        }
        #expect(compared > 200)
        #expect(Set(recorded.values.map { ($0 * 10).rounded() }).count > 100)  // it did scroll
    }
}
