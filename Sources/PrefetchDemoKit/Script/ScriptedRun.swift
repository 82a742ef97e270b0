import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// Runs a ``Script`` on virtual time through the real collection view (or table view), the
/// seeds' data source and the real ``PrefetchKit/AsyncFetcher``, so the same seed gives the same run.
///
/// Each frame (60 per simulated second) the driver finishes the simulated loads that are due,
/// one at a time in deadline order with the clock at each deadline, then gives the view its
/// gesture input and steps it. After every one of these it waits until the fetcher's tasks have
/// settled: every running load has reached the network, finished loads are processed, and every
/// completion handler has run its main-actor work. Nothing advances while anything is in motion,
/// so thread timing cannot change what happens.
@MainActor
package final class ScriptedRun {
    /// The frame rate of the virtual driver.
    package static let frameRate = 60.0
    /// Simulated seconds after the gestures end, so loads for visible cells can finish.
    package static let tail = 1.0

    package let scene: DemoScene
    package let script: Script
    /// The longest the run may take, in simulated seconds.
    package let duration: Double?
    private let clock: VirtualClock
    private let network: VirtualNetwork
    private let signal: ChangeSignal

    /// What a frame callback sees.
    package struct Frame {
        /// The frame's simulated time, in seconds.
        package var time: Double
        /// Whether this frame ends a simulated second (for progress lines).
        package var isWholeSecond: Bool
    }

    package init(settings: DemoSettings, script: Script, duration: Double?) throws {
        let clock = VirtualClock()
        let signal = ChangeSignal()
        let latency = LatencySetting(model: settings.latency, seed: settings.seed)
        let models = Model.make(count: settings.itemCount, seed: settings.seed)
        let network = VirtualNetwork(models: models, latency: latency, clock: clock, signal: signal)
        self.clock = clock
        self.signal = signal
        self.network = network
        self.script = script
        self.duration = duration
        scene = try DemoScene(settings: settings, loader: network, clock: clock, signal: signal, now: { clock.seconds })
    }

    /// Plays the script to its end (or ``duration``), calling `onFrame` after every frame; stops
    /// early when `onFrame` returns false. Returns the summary.
    package func run(onFrame: (Frame) async throws -> Bool = { _ in true }) async throws -> DemoSummary {
        let dt = 1 / Self.frameRate
        var player = GesturePlayer(script.gestures)
        var motionEnded: Double?
        scene.step(to: 0)
        await settle()
        scene.metrics.isCounting = true
        var frame = 0
        while true {
            frame += 1
            let t = Double(frame) * dt
            if let duration, t > duration + 1e-9 { break }
            if let ended = motionEnded, t > ended + Self.tail + 1e-9 { break }
            let limit = Duration.seconds(exactly: t)
            while let id = network.completeNext(upTo: limit) {
                await settle(delivering: id)
            }
            clock.advance(to: VirtualClock.Instant(offset: limit))
            try player.input(to: scene.view, at: t, frameDuration: dt)
            scene.step(to: t)
            await settle()
            if motionEnded == nil, player.isFinished, !scene.view.isDecelerating { motionEnded = t }
            guard try await onFrame(Frame(time: t, isWholeSecond: frame % Int(Self.frameRate) == 0)) else { break }
        }
        scene.metrics.finish()
        let summary = scene.summary
        scene.fetcher.shutdown()
        return summary
    }

    /// Waits until the fetcher's tasks are at rest: every running load waits in the network,
    /// every completion has run on the main actor, and `id`'s consumers (if given) have heard.
    private func settle(delivering id: UUID? = nil) async {
        while true {
            let version = signal.version
            let quiet = network.waitingCount == scene.fetcher.statistics.inFlight
                && signal.pendingDeliveries == 0
                && !(id.map(scene.hasLiveConsumers) ?? false)
            if quiet { return }
            await signal.wait(after: version)
        }
    }
}
