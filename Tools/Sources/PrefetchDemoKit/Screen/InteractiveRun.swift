import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The interactive sample app: real time over the simulated network or a real server, keys to scroll.
///
/// A ``PrefetchSimulation/FrameDriver`` in real time, about 30 frames a second: the backend
/// moves to the time elapsed (the simulated network's virtual time follows the wall clock), the
/// keys typed are the input, the view steps, the backend settles or brings in the feed's pages,
/// and the screen is redrawn.
@MainActor
package final class InteractiveRun {
    private let scene: DemoScene
    private let terminal: Terminal
    private let painter: ScreenPainter
    private let record: URL?

    /// The interactive app over `backend`: the simulated network (its virtual time follows the
    /// wall clock) or a server. With `record`, the session is written there as a scroll trace when it ends.
    package init(settings: DemoSettings, backend: any DemoBackend, terminal: Terminal, renderer: ScreenRenderer, record: URL? = nil) {
        scene = DemoScene(settings: settings, backend: backend)
        self.terminal = terminal
        painter = ScreenPainter(terminal: terminal, renderer: renderer)
        self.record = record
    }

    /// Runs until `q`, Ctrl-C, or the settings' duration; returns the result.
    package func run() async throws -> SimulationResult {
        terminal.enter()
        let sources = terminal.installSignalHandlers()
        defer {
            for source in sources { source.cancel() }
            terminal.restore()
        }
        let (settings, backend, app) = (scene.settings, scene.backend, scene.app)
        let recorder = record.map { Self.recorder(writing: $0, settings: settings, backend: backend) }
        let keys = KeyInput(terminal: terminal, backend: backend, itemCount: scene.models.count)
        var input = keys
        let end = try await FrameDriver(frameRate: 30, duration: settings.duration, realTime: true).play(
            &input, on: app.view, advance: { await backend.advance(to: $0) },
            step: { t in
                app.step(to: t)
                recorder?.record(app.view, at: t)
                await backend.frameEnded()
            },
            afterFrame: { frame in
                if frame.index == 0 { app.meter.startCounting() }
                guard !keys.quit, !terminal.wasInterrupted else { return false }
                let title = ScreenPainter.title(settings, prefetching: app.isPrefetchingEnabled, data: backend.label, mode: "interactive")
                painter.paint(scene, title: title, footer: [ScreenPainter.interactiveKeys, keys.message].compactMap { $0 }.joined(separator: "   "))
                return true
            })
        app.finish()
        if let recorder, let record { try recorder.write(to: record) }
        var result = app.meter.result(scenario: settings.scenario.name, policy: settings.policy.name, duration: end)
        result.peakMemoryBytes = app.fetcher.statistics.peakMemoryHeld
        return result
    }

    /// The recorder of `--record url`: the layout the view shows, with the backend's item count
    /// (a server's feed total, read from its first page) rather than the settings' (1,000 by
    /// default), so that the trace's offsets lie in its layout's content.
    package static func recorder(writing url: URL, settings: DemoSettings, backend: any DemoBackend) -> TraceRecorder {
        var shown = settings
        shown.itemCount = backend.models.count
        return TraceRecorder(name: url.deletingPathExtension().lastPathComponent, layout: shown.scenarioLayout, viewport: shown.viewport)
    }
}

/// The keys as a frame's input: arrows drag (a drag ends after 0.2 s without a key), pages fling,
/// `g`/`G` jump to the top and bottom, `+`/`-` scale the latency, `p` toggles prefetching.
@MainActor
final class KeyInput: FrameInput {
    let terminal: Terminal
    let backend: any DemoBackend
    let itemCount: Int
    /// What the last key changed, for the footer.
    var message: String?
    /// Whether `q` was typed.
    var quit = false
    private var lastScrollKey = -1.0

    /// Drag distance per arrow key, in points.
    static let keyStep = 44.0
    /// Fling speed of PgUp/PgDn, in points per second.
    static let flingSpeed = 3_000.0

    init(terminal: Terminal, backend: any DemoBackend, itemCount: Int) {
        (self.terminal, self.backend, self.itemCount) = (terminal, backend, itemCount)
    }

    /// Keys never run out.
    var isFinished: Bool { false }

    func input(to view: ItemScrollView, at time: Double, frameDuration: Double) throws {
        var drag = 0.0
        for key in Key.parse(terminal.readAvailable()) {
            switch key {
            case .down: drag += Self.keyStep
            case .up: drag -= Self.keyStep
            case .pageDown: view.fling(velocity: Self.flingSpeed)
            case .pageUp: view.fling(velocity: -Self.flingSpeed)
            case .top: try view.scrollToItem(at: IndexPath(item: 0, section: 0), at: .top, animated: false)
            case .bottom: try view.scrollToItem(at: IndexPath(item: itemCount - 1, section: 0), at: .bottom, animated: false)
            case .slower, .faster: message = backend.scaleLatency(by: key == .slower ? 1.5 : 1 / 1.5)
            case .togglePrefetch:
                backend.app.isPrefetchingEnabled.toggle()
                message = "prefetching \(backend.app.isPrefetchingEnabled ? "on" : "off")"
            case .quit: quit = true
            }
        }
        if drag != 0 {
            view.drag(by: drag)
            lastScrollKey = time
        } else if view.isDragging, time - lastScrollKey > 0.2 {
            // Key repeat leaves gaps between presses: end the drag only after a pause.
            view.endDragging()
        }
    }
}
