import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The interactive sample app: real time over the simulated network or a real server, keys to scroll.
///
/// About 30 frames a second the loop moves the backend to the time elapsed (the simulated
/// network's virtual time follows the wall clock), reads the keys typed, steps the view, lets
/// the backend settle or bring in the feed's pages, and redraws.
@MainActor
package final class InteractiveRun {
    private let settings: DemoSettings
    private let scene: DemoScene
    private let terminal: Terminal
    private let painter: ScreenPainter
    private let duration: Double?
    private let clock = ContinuousClock()
    private let recording: (recorder: TraceRecorder, file: URL)?

    /// Drag distance per arrow key, in points.
    private static let keyStep = 44.0
    /// Fling speed of PgUp/PgDn, in points per second.
    private static let flingSpeed = 3_000.0

    /// The interactive app over `backend`: the simulated network (its virtual time follows the
    /// wall clock) or a server.
    /// With `record`, the session is written there as a scroll trace when it ends.
    package init(settings: DemoSettings, backend: any DemoBackend, terminal: Terminal, renderer: ScreenRenderer, duration: Double?, record: URL? = nil) throws {
        self.settings = settings
        recording = record.map {
            (TraceRecorder(name: $0.deletingPathExtension().lastPathComponent, layout: settings.scenarioLayout, viewport: settings.viewport), $0)
        }
        self.terminal = terminal
        self.painter = ScreenPainter(terminal: terminal, renderer: renderer)
        self.duration = duration
        scene = try DemoScene(settings: settings, backend: backend)
    }

    /// Runs until `q`, Ctrl-C, or ``duration``; returns the summary.
    package func run() async throws -> DemoSummary {
        terminal.enter()
        let sources = terminal.installSignalHandlers()
        defer {
            for source in sources { source.cancel() }
            terminal.restore()
        }
        let backend = scene.backend
        let start = clock.now
        scene.step(to: 0)
        recording?.recorder.record(scene.view, at: 0)
        await backend.frameEnded(scene)
        scene.meter.startCounting()
        var lastScrollKey = -1.0
        var message = ""
        while !terminal.wasInterrupted {
            let now = (clock.now - start).seconds
            await backend.advance(to: now)
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
                    message = backend.scaleLatency(by: key == .slower ? 1.5 : 1 / 1.5)
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
            recording?.recorder.record(scene.view, at: now)
            await backend.frameEnded(scene)
            let title = ScreenPainter.title(settings, prefetching: scene.view.isPrefetchingEnabled, data: backend.label, mode: "interactive")
            painter.paint(scene, title: title, footer: message.isEmpty ? ScreenPainter.interactiveKeys : ScreenPainter.interactiveKeys + "   " + message)
            try await clock.sleep(for: .milliseconds(33))
        }
        scene.meter.finish(stillPlanned: scene.view.indexPathsPendingPrefetch.map(\.item))
        if let recording { try recording.recorder.write(to: recording.file) }
        let summary = await backend.summary(of: scene)
        scene.fetcher.shutdown()
        return summary
    }
}
