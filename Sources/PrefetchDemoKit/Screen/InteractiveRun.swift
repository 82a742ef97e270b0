import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The interactive sample app: real time, real (simulated) network delays or a real server,
/// keys to scroll.
///
/// About 30 frames a second the loop reads the keys typed, steps the view to the time elapsed,
/// brings in the feed's pages (with a ``RemoteSource``) and redraws. Loads sleep on the real
/// clock inside the loader, or wait for the server; their completions hop to the main actor
/// while the loop waits for the next frame.
@MainActor
package final class InteractiveRun {
    private let settings: DemoSettings
    private let latency: LatencySetting
    private let scene: DemoScene
    private let remote: RemoteSource?
    private let terminal: Terminal
    private let painter: ScreenPainter
    private let duration: Double?
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant

    /// Drag distance per arrow key, in points.
    private static let keyStep = 44.0
    /// Fling speed of PgUp/PgDn, in points per second.
    private static let flingSpeed = 3_000.0

    package init(settings: DemoSettings, terminal: Terminal, renderer: ScreenRenderer, duration: Double?) throws {
        self.settings = settings
        self.terminal = terminal
        self.painter = ScreenPainter(terminal: terminal, renderer: renderer)
        self.duration = duration
        let latency = LatencySetting(model: settings.latency, seed: settings.seed)
        self.latency = latency
        let models = Model.make(count: settings.itemCount, seed: settings.seed)
        let clock = self.clock
        let start = clock.now
        self.start = start
        scene = try DemoScene(
            settings: settings, loader: RealTimeLoader(models: models, latency: latency, clock: clock), clock: clock,
            signal: ChangeSignal(), now: { (clock.now - start).seconds })
        remote = nil
    }

    /// The interactive app over a server: the models and thumbnails come from `remote`.
    package init(settings: DemoSettings, remote: RemoteSource, terminal: Terminal, renderer: ScreenRenderer, duration: Double?) throws {
        self.settings = settings
        self.terminal = terminal
        self.painter = ScreenPainter(terminal: terminal, renderer: renderer)
        self.duration = duration
        self.latency = LatencySetting(model: settings.latency, seed: settings.seed)
        self.remote = remote
        let clock = self.clock
        let start = clock.now
        self.start = start
        scene = try remote.makeScene(settings: settings, now: { (clock.now - start).seconds })
    }

    private var elapsed: Double { (clock.now - start).seconds }

    /// Runs until `q`, Ctrl-C, or ``duration``; returns the summary.
    package func run() async throws -> DemoSummary {
        terminal.enter()
        let sources = terminal.installSignalHandlers()
        defer {
            for source in sources { source.cancel() }
            terminal.restore()
        }
        scene.step(to: 0)
        await remote?.update(scene)
        scene.metrics.isCounting = true
        var lastScrollKey = -1.0
        var message = ""
        while !terminal.wasInterrupted {
            let now = elapsed
            if let duration, now > duration { break }
            let keys = Key.parse(terminal.readAvailable())
            if keys.contains(.quit) { break }
            var drag = 0.0
            for key in keys {
                switch key {
                case .down: drag += Self.keyStep
                case .up: drag -= Self.keyStep
                case .pageDown: scene.view.fling(velocity: Self.flingSpeed)
                case .pageUp: scene.view.fling(velocity: -Self.flingSpeed)
                case .top:
                    try scene.view.scrollToItem(at: IndexPath(item: 0, section: 0), at: .top, animated: false)
                case .bottom:
                    try scene.view.scrollToItem(at: IndexPath(item: scene.models.count - 1, section: 0), at: .bottom, animated: false)
                case .slower, .faster:
                    guard remote == nil else {
                        message = "the server sets the latency (--server-latency-ms with --serve)"
                        break
                    }
                    latency.model = Self.scaled(latency.model, by: key == .slower ? 1.5 : 1 / 1.5)
                    message = "latency now \(latency.model) for new loads"
                case .togglePrefetch:
                    scene.view.isPrefetchingEnabled.toggle()
                    message = "prefetching \(scene.view.isPrefetchingEnabled ? "on" : "off")"
                case .quit:
                    break
                }
            }
            if drag != 0 {
                scene.view.drag(by: drag)
                lastScrollKey = now
            } else if scene.view.isDragging, now - lastScrollKey > 0.2 {
                // Key repeat leaves gaps between presses: end the drag only after a pause.
                scene.view.endDragging()
            }
            scene.step(to: now)
            await remote?.update(scene)
            let title = remote.map {
                ScreenPainter.title(settings, prefetching: scene.view.isPrefetchingEnabled, source: $0.baseURL.absoluteString, mode: "interactive")
            } ?? ScreenPainter.title(settings, prefetching: scene.view.isPrefetchingEnabled, latency: latency.model, mode: "interactive")
            painter.paint(scene, title: title, footer: message.isEmpty ? ScreenPainter.interactiveKeys : ScreenPainter.interactiveKeys + "   " + message)
            try await clock.sleep(for: .milliseconds(33))
        }
        scene.metrics.finish()
        let summary = if let remote { await remote.summary(of: scene) } else { scene.summary }
        scene.fetcher.shutdown()
        return summary
    }

    /// `model` with every latency multiplied by `factor`, kept between 1 ms and 10 s.
    static func scaled(_ model: LatencyModel, by factor: Double) -> LatencyModel {
        func clamp(_ s: Double) -> Double { min(10, max(0.001, s * factor)) }
        switch model.distribution {
        case .fixed(let s): return (try? .fixed(clamp(s))) ?? model
        case .logNormal(let median, let p99): return (try? .logNormal(median: clamp(median), p99: max(clamp(p99), clamp(median)))) ?? model
        case .bandwidth: return model
        }
    }
}
