import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation
import PrefetchToolSupport

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

    /// What an interactive session ends with.
    package struct Outcome {
        /// The meter's figures (over a server, with the bytes received and the link's share as the status line shows them).
        package var result: SimulationResult
        /// The settings as the keys left them: the policy (`c`), prefetching (`p`) and the latency (`+`, `-`).
        package var settings: DemoSettings
        /// What the keys changed, first value to last: `prefetching on → off`.
        package var changes: [String]
        /// The session's scroll trace (`--record`), written by the caller after the summary.
        package var recorder: TraceRecorder?
    }

    /// Runs until `q`, Ctrl-C, or the settings' duration; returns the result and the settings the keys left.
    package func run() async throws -> Outcome {
        terminal.enter()
        let sources = terminal.installSignalHandlers()
        defer {
            for source in sources { source.cancel() }
            terminal.restore()
        }
        let (settings, backend, app, scene) = (scene.settings, scene.backend, scene.app, scene)
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
                let title = ScreenPainter.title(settings, policy: app.policy.name, prefetching: app.isPrefetchingEnabled, data: backend.label,
                                                mode: "interactive")
                painter.paint(scene, title: title, footer: ScreenPainter.interactiveKeys, message: keys.message)
                return true
            })
        app.finish()
        var final = settings
        final.policy = app.policy
        final.prefetching = app.isPrefetchingEnabled
        if let latency = backend.currentLatency { final.latency = latency }
        var result = app.meter.result(scenario: settings.scenario.name, policy: final.policy.name, duration: end)
        result.peakMemoryBytes = app.fetcher.statistics.peakMemoryHeld
        if let wire = backend.wire {
            // The status line's figures at the end: bytes received, and their share of the server's link.
            result.bytesOnWire = wire.bytesReceived
            result.linkUtilisation = wire.utilisation ?? 0
        }
        return Outcome(result: result, settings: final, changes: Self.changes(from: settings, to: final), recorder: recorder)
    }

    /// What differs between the settings a session started with and those it ended with, as
    /// `policy adaptive → none`, `prefetching on → off`, `latency fixed 300 ms → fixed 1013 ms`.
    package static func changes(from start: DemoSettings, to end: DemoSettings) -> [String] {
        var changes: [String] = []
        if start.policy.name != end.policy.name { changes.append("policy \(start.policy.name) → \(end.policy.name)") }
        if start.prefetching != end.prefetching {
            changes.append("prefetching \(start.prefetching ? "on" : "off") → \(end.prefetching ? "on" : "off")")
        }
        if "\(start.latency)" != "\(end.latency)" { changes.append("latency \(start.latency) → \(end.latency)") }
        return changes
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
/// `g`/`G` jump to the top and bottom, `a` scrolls with animation to an item half the list away,
/// `n` brings 20 new items above the first (the rows on screen stay put), `+`/`-` scale the latency, `p` toggles prefetching, `c`
/// moves to the next policy, `m` sends a memory warning.
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
    /// How many new items arrive above at `n`.
    static let arrivals = 20
    /// Fling speed of PgUp/PgDn, in points per second.
    static let flingSpeed = 3_000.0

    init(terminal: Terminal, backend: any DemoBackend, itemCount: Int) {
        (self.terminal, self.backend, self.itemCount) = (terminal, backend, itemCount)
    }

    /// Keys never run out.
    var isFinished: Bool { false }

    func input(to view: ItemScrollView, at time: Double, frameDuration: Double) throws {
        try apply(Key.parse(terminal.readAvailable()), to: view, at: time)
    }

    /// Applies `keys`, typed by `time`, to `view` and the app.
    func apply(_ keys: [Key], to view: ItemScrollView, at time: Double) throws {
        var drag = 0.0
        let app = backend.app
        for key in keys {
            switch key {
            case .down: drag += Self.keyStep
            case .up: drag -= Self.keyStep
            case .pageDown: view.fling(velocity: Self.flingSpeed)
            case .pageUp: view.fling(velocity: -Self.flingSpeed)
            case .top: try view.scrollToItem(at: IndexPath(item: 0, section: 0), at: .top, animated: false)
            case .bottom: try view.scrollToItem(at: IndexPath(item: backend.models.count - 1, section: 0), at: .bottom, animated: false)
            case .slower, .faster: message = backend.scaleLatency(by: key == .slower ? 1.5 : 1 / 1.5)
            case .togglePrefetch:
                app.isPrefetchingEnabled.toggle()
                message = "prefetching \(app.isPrefetchingEnabled ? "on" : "off")"
            case .cyclePolicy:
                let next = Self.policy(after: app.policy.name)
                app.policy = next
                message = "policy now \(next.name)" + (app.isPrefetchingEnabled ? "" : " (prefetching is off: p turns it on)")
            case .memoryWarning:
                let before = app.fetcher.cachedCount
                app.view.handleMemoryPressure()
                let seconds = LatencyOptions.format(app.prefetchConfiguration.memoryPressureDuration / .seconds(1))
                message = "memory warning sent: cache \(before) → \(app.fetcher.cachedCount) values  for \(seconds) s the plan keeps only the screen and a fling's landing zone"
            case .animatedScroll:
                let target = Self.farItem(from: app.visibleItems.first ?? 0, count: backend.models.count)
                app.scroll(toItem: target)
                message = "animated scroll to #\(target) (0.3 s, ease-in-out): the app told its prefetcher the destination first"
            case .newAbove:
                message = backend.insertAbove(count: Self.arrivals)
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

    /// The item an animated scroll (`a`) goes to from `first` on screen: half the list away,
    /// down from the first half and up from the second.
    static func farItem(from first: Int, count: Int) -> Int {
        guard count > 1 else { return 0 }
        return first < count / 2 ? min(count - 1, first + count / 2) : max(0, first - count / 2)
    }

    /// The policy after `name` in `PrefetchPolicies.all`: none → uikitLike → textureLike → adaptive → none.
    static func policy(after name: String) -> any PrefetchPolicy {
        let all = PrefetchPolicies.all
        let index = all.firstIndex { $0.name == name } ?? (all.count - 1)
        return all[(index + 1) % all.count]
    }
}
