import Foundation
import PrefetchCollectionView
import PrefetchKit

/// Runs a ``Script`` in real time over a real network (`--serve`, `--source`): the same
/// gestures as ``ScriptedRun``, but each frame is stepped to the time on the wall clock, and
/// loads take as long as the server and the disk take.
///
/// About 60 frames a second the driver gives the view its gesture input for the time elapsed
/// since the previous frame, steps it, and brings in the feed's pages (``RemoteSource/update(_:)``).
/// Completions hop to the main actor between frames. A run is not repeatable the way a
/// virtual-time run is: the network decides.
@MainActor
package final class RealTimeScriptedRun {
    /// The frame rate the driver aims for.
    package static let frameRate = 60.0

    package let scene: DemoScene
    package let source: RemoteSource
    package let script: Script
    /// The longest the run may take, in wall-clock seconds.
    package let duration: Double?
    private let clock = ContinuousClock()
    private let start: StartTime

    /// The run's start, shared with the scene's metrics.
    private final class StartTime: Sendable {
        let instant = Locked(ContinuousClock.now)
        var elapsed: Double { (ContinuousClock.now - instant.withLock { $0 }).seconds }
    }

    package init(settings: DemoSettings, script: Script, duration: Double?, source: RemoteSource) throws {
        let start = StartTime()
        self.start = start
        self.source = source
        self.script = script
        self.duration = duration
        scene = try source.makeScene(settings: settings, now: { start.elapsed })
    }

    /// Plays the script to its end (or ``duration``), calling `onFrame` after every frame; stops
    /// early when `onFrame` returns false. Returns the summary.
    package func run(onFrame: (ScriptedRun.Frame) async throws -> Bool = { _ in true }) async throws -> DemoSummary {
        var player = GesturePlayer(script.gestures)
        var motionEnded: Double?
        start.instant.withLock { $0 = clock.now }
        let origin = start.instant.withLock { $0 }
        scene.step(to: 0)
        await source.update(scene)
        scene.metrics.isCounting = true
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
            try player.input(to: scene.view, at: t, frameDuration: t - last)
            scene.step(to: t)
            await source.update(scene)
            last = t
            if motionEnded == nil, player.isFinished, !scene.view.isDecelerating { motionEnded = t }
            let isWholeSecond = t >= nextWholeSecond
            if isWholeSecond { nextWholeSecond = t.rounded(.down) + 1 }
            guard try await onFrame(ScriptedRun.Frame(time: t, isWholeSecond: isWholeSecond)) else { break }
        }
        scene.metrics.finish()
        let summary = await source.summary(of: scene)
        scene.fetcher.shutdown()
        return summary
    }
}
