import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation

/// The sample app: a backend's model list and ``PrefetchSimulation/SampleApp`` (Apple's sample's
/// data source over the backend's fetcher, in a grid or a list), and what the screen draws of it.
///
/// The scene does not know about time: the backend's driver steps its view, on virtual time
/// over the simulated network, in real time over a server.
@MainActor
package final class DemoScene {
    package let settings: DemoSettings
    package let backend: any DemoBackend
    /// Follows the app's prefetch plan for the screen.
    package let plan = PlanTracker()

    /// The scene of `settings` over `backend`.
    package init(settings: DemoSettings, backend: any DemoBackend) {
        self.settings = settings
        self.backend = backend
    }

    /// The scene of `settings` over the simulated network.
    package convenience init(settings: DemoSettings) throws {
        self.init(settings: settings, backend: try SimulatedBackend(settings: settings))
    }

    package var app: SampleApp<UUID, DisplayData> { backend.app }
    package var view: ItemScrollView { backend.app.view }
    package var models: ModelList { backend.models }

    /// Plays the settings' script through the backend (on virtual time over the simulated
    /// network, in real time over a server), calling `onFrame` after each frame but the first
    /// screen (false stops the run), and ends the run. Returns its result.
    package func play(onFrame: (FrameDriver.Frame) async throws -> Bool = { _ in true }) async throws -> SimulationResult {
        try await backend.play(on: self, onFrame: onFrame)
    }

    /// The items on screen, as a range of item indexes (nil when none).
    package var visibleItems: ClosedRange<Int>? {
        let shown = app.visibleItems
        return shown.min().flatMap { lo in shown.max().map { lo...$0 } }
    }

    /// Reads the app's plan for this frame (call once per drawn frame, before ``tiles(in:)``)
    /// and returns what the screen draws of it.
    @discardableResult
    package func updatePlan() -> PlanFigures {
        let (models, fetcher, base) = (models, app.fetcher, app.indexBase)
        plan.update(app: app) { index in
            models.model(at: index + base).map { fetcher.fetchedData(for: $0.identifier) != nil } ?? false
        }
        return plan.figures
    }

    /// The tiles to draw for the items whose frames meet `rect` (content coordinates): each
    /// item's displayed cell's content, or else what the fetcher has for it, and why it is (or
    /// is not) loading, as of the latest ``updatePlan()``. With previews, a cell (or a cached
    /// item) that holds only a preview is a ``Tile/State/preview(_:shown:)``.
    package func tiles(in rect: CGRect) -> [Tile] {
        let pending = Set(app.plannedItems)
        let board = backend.board
        let previews = settings.previews.isEnabled
        let viewport = view.bounds
        var tiles: [Tile] = []
        app.forEachItem(in: rect) { index, frame in
            let reason = plan.reason(of: index, frame: frame, viewport: viewport)
            guard let model = models.model(at: index + app.indexBase) else {
                // A feed item whose page has not arrived: a placeholder.
                tiles.append(Tile(index: index, frame: frame, title: "Item \(index) …", state: pending.contains(index) ? .waiting : .blank,
                                  reason: reason))
                return
            }
            let state: Tile.State
            if let content = app.content(at: index) {
                if let data = content.data {
                    state = content.isPreview ? .preview(data, shown: true) : .shown(data)
                } else {
                    state = board.isLoading(model.identifier) ? .loading : .waiting
                }
            } else if let data = app.fetcher.fetchedData(for: model.identifier) {
                // With previews, what is cached may be only a preview.
                let full = !previews || app.fetcher.fetchedData(for: model.identifier, atLeast: .full) != nil
                state = full ? .cached(data) : .preview(data, shown: false)
            } else if board.isLoading(model.identifier) {
                state = .loading
            } else {
                state = pending.contains(index) ? .waiting : .blank
            }
            tiles.append(Tile(index: index, frame: frame, title: model.title, state: state, reason: reason))
        }
        return tiles
    }

    /// The status figures of the screen and the progress lines.
    package var status: StatusFigures {
        let stats = app.fetcher.statistics
        let result = app.meter.result()
        return StatusFigures(
            offset: view.contentOffset.y, velocity: view.velocity, visible: visibleItems,
            inFlight: stats.inFlight, queued: stats.queued, cached: app.fetcher.cachedCount,
            displayReadyRate: result.displayReadyRate, appearances: result.displayed, loadsCancelled: stats.loadsCancelled,
            expectedLatencyMs: app.fetcher.expectedLatency.map { $0 / .milliseconds(1) }, wire: backend.wire,
            memoryHeld: stats.memoryHeld, peakMemoryHeld: stats.peakMemoryHeld, memoryModelled: backend.memoryCost != .payload,
            previewsOnScreen: settings.previews.isEnabled ? app.visibleItems.count(where: { app.content(at: $0)?.isPreview == true }) : nil)
    }
}

/// The figures of the status line.
package struct StatusFigures: Sendable {
    package var offset: Double
    package var velocity: Double
    package var visible: ClosedRange<Int>?
    package var inFlight: Int
    package var queued: Int
    package var cached: Int
    package var displayReadyRate: Double
    package var appearances: Int
    package var loadsCancelled: Int
    package var expectedLatencyMs: Double?
    /// Bytes on the wire, over a server.
    package var wire: WireFigures?
    /// The memory the fetcher holds now and at most so far, in its cost unit (bytes).
    package var memoryHeld: Int
    package var peakMemoryHeld: Int
    /// Whether each value's cost is a modelled decoded size (``MemoryCost/modelled(bytesPerValue:)``).
    package var memoryModelled = true
    /// With previews, the cells on screen showing only a preview; nil without previews.
    package var previewsOnScreen: Int?
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { self / .seconds(1) }
}
