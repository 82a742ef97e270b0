import Foundation
import PrefetchSimulation

/// Draws a scene on a terminal, a frame at a time.
@MainActor
package struct ScreenPainter {
    let terminal: Terminal
    let renderer: ScreenRenderer

    /// The keys line of the interactive screen.
    package static let interactiveKeys = "↑↓/jk scroll  PgUp/PgDn/space fling  g/G top/bottom  +/- latency  p prefetch  q quit"

    /// Draws `scene` with `title` and `footer` at the terminal's current size.
    package func paint(_ scene: DemoScene, title: String, footer: String) {
        let (columns, rows) = terminal.size
        let model = ScreenModel(
            columns: columns, rows: rows, layout: scene.settings.layout, viewport: scene.view.bounds,
            title: title, status: scene.status, footer: footer)
        let geometry = ScreenGeometry(columns: columns, rows: rows)
        let tiles = scene.tiles(in: geometry.drawnRect(for: scene.view.bounds))
        let lines = renderer.render(model, tiles: tiles)
        terminal.write("\u{1B}[H" + lines.joined(separator: "\r\n"))
    }

    /// The title line for `settings`, with what the backend says about its data (the latency,
    /// or the server's address).
    package static func title(_ settings: DemoSettings, prefetching: Bool, data: String, mode: String) -> String {
        " prefetch-demo · \(mode) · \(settings.layout.rawValue) · \(settings.policy.name)"
            + " · prefetching \(prefetching ? "ON" : "OFF") · \(data)"
    }
}
