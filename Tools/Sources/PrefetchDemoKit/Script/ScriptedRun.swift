import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Runs a ``Script`` on virtual time through the real collection view (or table view), the data
/// source of Apple's sample and the real ``PrefetchKit/AsyncFetcher`` over the simulated network,
/// so the same seed gives the same run.
///
/// The run is the simulator's app loop (``PrefetchSimulation/VirtualTimeLoop``): each frame (60
/// per simulated second) the simulated loads that are due finish one at a time in deadline
/// order, the ``PrefetchSimulation/GestureDriver`` gives the view its input and the view steps;
/// after each of these the loop waits until the fetcher's tasks have settled. A
/// ``PrefetchSimulation/ReadinessMeter`` measures, as `prefetch-bench` does: the same scenario
/// gives the same figures in both.
@MainActor
package final class ScriptedRun {
    /// The frame rate of the virtual driver.
    package static let frameRate = 60.0
    /// Simulated seconds after the gestures end, so loads for visible cells can finish.
    package static let tail = 1.0

    package let scene: DemoScene
    package let backend: SimulatedBackend
    package let script: Script
    /// The longest the run may take, in simulated seconds.
    package let duration: Double?

    /// What a frame callback sees.
    package struct Frame {
        /// The frame's time, in seconds since the start.
        package var time: Double
        /// Whether this frame ends a second (for progress lines).
        package var isWholeSecond: Bool
    }

    package init(settings: DemoSettings, script: Script, duration: Double?) throws {
        backend = try SimulatedBackend(settings: settings)
        scene = try DemoScene(settings: settings, backend: backend)
        self.script = script
        self.duration = duration
    }

    /// Plays the script to its end (or ``duration``), calling `onFrame` after every frame; stops
    /// early when `onFrame` returns false. Returns the summary.
    package func run(onFrame: (Frame) async throws -> Bool = { _ in true }) async throws -> DemoSummary {
        try await scene.play(script, duration: duration, onFrame: onFrame)
    }
}
