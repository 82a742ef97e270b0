import Foundation

/// One item as the screen draws it.
package struct Tile: Sendable {
    /// What an item has.
    package enum State: Sendable {
        /// A cell on screen showing its data.
        case shown(DisplayData)
        /// No cell on screen, but the data is cached: prefetched (or loaded when it was on screen).
        case cached(DisplayData)
        /// With previews: only a preview of the data, shown by a cell on screen (`shown`) or
        /// cached for an item without one; the full value is on its way or not yet asked for.
        case preview(DisplayData, shown: Bool)
        /// A load is running for it.
        case loading
        /// Wanted (a blank cell, or pending prefetch) but waiting for a load slot.
        case waiting
        /// Nothing requested.
        case blank
    }

    package var index: Int
    package var frame: CGRect
    package var title: String
    package var state: State
    /// Why it is (or is not) loading.
    package var reason: PlanReason = .none
}

/// Everything one screen shows.
package struct ScreenModel: Sendable {
    /// The terminal's size in columns and rows.
    package var columns: Int
    package var rows: Int
    /// Grid or list.
    package var layout: DemoLayout
    /// The viewport in content coordinates.
    package var viewport: CGRect
    /// The title line.
    package var title: String
    /// The status figures.
    package var status: StatusFigures
    /// The key help, phrases separated by two spaces (wrapped at those).
    package var footer: String
    /// What the last key did, drawn above the key help (phrases separated by two spaces).
    package var message: String?
    /// The prefetch plan: the requested window, where a fling rests, what was skipped.
    package var plan: PlanFigures
    /// Whether the run shows previews: the legend then explains the preview cell.
    package var previews: Bool

    package init(columns: Int, rows: Int, layout: DemoLayout, viewport: CGRect, title: String, status: StatusFigures, footer: String,
                 message: String? = nil, plan: PlanFigures = PlanFigures(), previews: Bool = false) {
        self.message = message
        self.previews = previews
        self.columns = columns
        self.rows = rows
        self.layout = layout
        self.viewport = viewport
        self.title = title
        self.status = status
        self.footer = footer
        self.plan = plan
    }
}

/// How the screen maps the content to terminal cells.
///
/// Columns, left to right: the window's bracket (the requested items, at the drawing's scale),
/// the frame's left bar, the cells, the frame's right bar, the landing mark (where a fling
/// rests, at the drawing's scale), a space, and the map (the viewport, the window and the
/// landing zone at a scale that fits them all).
package struct ScreenGeometry: Sendable {
    package var columns: Int
    package var rows: Int
    /// Lines under the drawing: status, plan, legend and keys.
    package var bottomRows: Int

    package init(columns: Int, rows: Int, bottomRows: Int = 3) {
        self.columns = columns
        self.rows = rows
        self.bottomRows = bottomRows
    }

    /// Rows for the drawing: all but the title line and the lines at the bottom.
    package var drawingRows: Int { max(3, rows - 1 - bottomRows) }
    /// Rows for the viewport; the rest shows the content above and below it.
    package var viewportRows: Int { max(2, Int(Double(drawingRows) * 0.56)) }
    /// Rows above the viewport.
    package var rowsAbove: Int { (drawingRows - viewportRows) / 2 }
    /// Columns for the viewport's width: all but the two at its left and the four at its right.
    package var viewportColumns: Int { max(10, columns - 6) }
    /// The first column of the viewport (after the window's bracket and its left bar).
    package var firstColumn: Int { 2 }
    /// The column of the window's bracket.
    package var windowColumn: Int { 0 }
    /// The column of the landing mark, right of the frame's right bar.
    package var landingColumn: Int { firstColumn + viewportColumns + 1 }
    /// The column of the map.
    package var mapColumn: Int { firstColumn + viewportColumns + 3 }

    /// The content rectangle the drawing covers for `viewport`.
    package func drawnRect(for viewport: CGRect) -> CGRect {
        let pointsPerRow = viewport.height / Double(viewportRows)
        return CGRect(x: viewport.minX, y: viewport.minY - Double(rowsAbove) * pointsPerRow,
                      width: viewport.width, height: Double(drawingRows) * pointsPerRow)
    }
}

extension Tile.State {
    var isLoading: Bool { if case .loading = self { true } else { false } }
}
