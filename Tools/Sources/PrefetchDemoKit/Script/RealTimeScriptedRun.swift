import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Plays a ``Script`` in real time over a real network (`--serve`, `--source`): the same
/// gestures as ``ScriptedRun``, but each frame is stepped to the time on the wall clock, and
/// loads take as long as the server and the disk take.
///
/// About 60 frames a second the driver gives the view its gesture input for the time elapsed
/// since the previous frame, steps it, and lets the backend bring in the feed's pages
/// (``DemoBackend/frameEnded(_:)``). Completions hop to the main actor between frames. A run is
/// not repeatable the way a virtual-time run is: the network decides.
@MainActor
package struct RealTimeScriptedRun {
    /// The frame rate the driver aims for.
    package static let frameRate = 60.0

    let scene: DemoScene
    let backend: ServerBackend
    let script: Script
    /// The longest the run may take, in wall-clock seconds.
    let duration: Double?

    /// Plays the script to its end (or ``duration``), calling `onFrame` after every frame; stops
    /// early when `onFrame` returns false.
    func run(onFrame: (ScriptedRun.Frame) async throws -> Bool) async throws {
        let clock = ContinuousClock()
        var gestures = GestureDriver(gestures: script.gestures)
        var motionEnded: Double?
        backend.restartClock()
        let origin = clock.now
        scene.step(to: 0)
        await backend.frameEnded(scene)
        scene.meter.startCounting()
        var frame = 0
        var last = 0.0
        var nextWholeSecond = 1.0
        while true {
            frame += 1
            // Aim at the next frame's time; after a slow frame, go on from now rather than catch up.
            let target = origin + .seconds(exactly: Double(frame) / Self.frameRate)
            if target > clock.now {
                try await clock.sleep(until: target)
            } else {
                frame = Int(((clock.now - origin).seconds * Self.frameRate).rounded(.up))
            }
            let t = (clock.now - origin).seconds
            if let duration, t > duration { break }
            if let ended = motionEnded, t > ended + ScriptedRun.tail { break }
            try gestures.input(to: scene.view, at: t, frameDuration: t - last)
            scene.step(to: t)
            await backend.frameEnded(scene)
            last = t
            if motionEnded == nil, gestures.isFinished, !scene.view.isDecelerating { motionEnded = t }
            let isWholeSecond = t >= nextWholeSecond
            if isWholeSecond { nextWholeSecond = t.rounded(.down) + 1 }
            guard try await onFrame(ScriptedRun.Frame(time: t, isWholeSecond: isWholeSecond)) else { break }
        }
    }
}
