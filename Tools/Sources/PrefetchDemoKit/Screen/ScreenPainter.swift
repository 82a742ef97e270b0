import Foundation
import PrefetchSimulation

/// Draws a scene on a terminal, a frame at a time.
@MainActor
package struct ScreenPainter {
    let terminal: Terminal
    let renderer: ScreenRenderer

    /// The keys line of the interactive screen.
    package static let interactiveKeys =
        "↑↓/jk scroll  PgUp/PgDn/space fling  g/G top/bottom  a animated scroll  n new above  +/- latency  p prefetch on/off  c next policy  m memory warning  q quit"

    /// Draws `scene` with `title`, `footer` (the keys) and `message` (what the last key did) at
    /// the terminal's current size.
    package func paint(_ scene: DemoScene, title: String, footer: String, message: String? = nil) {
        let (columns, rows) = terminal.size
        let lines = Self.lines(scene, renderer: renderer, columns: columns, rows: rows, title: title, footer: footer, message: message)
        terminal.write("\u{1B}[H" + lines.joined(separator: "\r\n"))
    }

    /// The screen of `scene` at `columns` × `rows`: reads the plan for this frame, then draws.
    package static func lines(_ scene: DemoScene, renderer: ScreenRenderer, columns: Int, rows: Int, title: String, footer: String,
                              message: String? = nil) -> [String] {
        let plan = scene.updatePlan()
        let model = ScreenModel(
            columns: columns, rows: rows, layout: scene.settings.layout, viewport: scene.view.bounds,
            title: title, status: scene.status, footer: footer, message: message, plan: plan, previews: scene.settings.previews.isEnabled)
        let geometry = renderer.geometry(for: model)
        let tiles = scene.tiles(in: geometry.drawnRect(for: scene.view.bounds))
        return renderer.render(model, tiles: tiles)
    }

    /// The title line for `settings` under `policy`, with what the backend says about its data
    /// (the latency, or the server's address).
    package static func title(_ settings: DemoSettings, policy: String, prefetching: Bool, data: String, mode: String) -> String {
        " prefetch-demo · \(mode) · \(settings.layout.rawValue) · \(policy)"
            + " · prefetching \(prefetching ? "ON" : "OFF") · \(data)"
    }
}
