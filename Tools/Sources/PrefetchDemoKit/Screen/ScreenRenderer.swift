import Foundation

/// One item as the screen draws it.
package struct Tile: Sendable {
    /// What an item has.
    package enum State: Sendable {
        /// A cell on screen showing its data.
        case shown(DisplayData)
        /// No cell on screen, but the data is cached: prefetched (or loaded when it was on screen).
        case cached(DisplayData)
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
    /// The key help or a message.
    package var footer: String

    package init(columns: Int, rows: Int, layout: DemoLayout, viewport: CGRect, title: String, status: StatusFigures, footer: String) {
        self.columns = columns
        self.rows = rows
        self.layout = layout
        self.viewport = viewport
        self.title = title
        self.status = status
        self.footer = footer
    }
}

/// How the screen maps the content to terminal cells.
package struct ScreenGeometry: Sendable {
    package var columns: Int
    package var rows: Int

    package init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// Rows for the drawing: all but the title line and the three lines at the bottom.
    package var drawingRows: Int { max(3, rows - 4) }
    /// Rows for the viewport; the rest shows the content above and below it.
    package var viewportRows: Int { max(2, Int(Double(drawingRows) * 0.56)) }
    /// Rows above the viewport.
    package var rowsAbove: Int { (drawingRows - viewportRows) / 2 }
    /// Columns for the viewport's width.
    package var viewportColumns: Int { max(10, columns - 4) }
    /// The first column of the viewport (after its left bar).
    package var firstColumn: Int { (columns - viewportColumns) / 2 }

    /// The content rectangle the drawing covers for `viewport`.
    package func drawnRect(for viewport: CGRect) -> CGRect {
        let pointsPerRow = viewport.height / Double(viewportRows)
        return CGRect(x: viewport.minX, y: viewport.minY - Double(rowsAbove) * pointsPerRow,
                      width: viewport.width, height: Double(drawingRows) * pointsPerRow)
    }
}

/// Draws the sample's screen into lines of text: coloured blocks with ANSI escape codes, or
/// plain text (for tests).
///
/// The viewport sits in a frame; the rows above and below it show the content outside the bounds,
/// as the storyboard of Apple's sample does with clipping turned off, dimmed, so a person sees
/// which cells were prefetched before they scrolled in.
package struct ScreenRenderer: Sendable {
    /// How colours are written.
    package enum ColorMode: Sendable {
        /// 24-bit colour.
        case trueColor
        /// The xterm 256-colour palette.
        case palette256
        /// No escape codes at all.
        case none
    }

    package var colorMode: ColorMode

    package init(colorMode: ColorMode) {
        self.colorMode = colorMode
    }

    /// The colour mode the terminal asks for through `COLORTERM`.
    package static func colorModeFromEnvironment() -> ColorMode {
        let value = ProcessInfo.processInfo.environment["COLORTERM"]?.lowercased() ?? ""
        return value.contains("truecolor") || value.contains("24bit") ? .trueColor : .palette256
    }

    private struct Glyph: Equatable {
        var character: Character = " "
        var background: RGB?
        var foreground: RGB?
        var bold = false
        var faint = false
        var inverse = false
    }

    private static let blankCell = RGB(r: 236, g: 236, b: 236)
    private static let loadingCell = RGB(r: 70, g: 70, b: 78)
    private static let waitingCell = RGB(r: 48, g: 48, b: 54)
    private static let dark = RGB(r: 20, g: 20, b: 20)
    private static let light = RGB(r: 235, g: 235, b: 235)
    private static let muted = RGB(r: 150, g: 150, b: 150)

    /// The screen as `rows` lines of `columns` cells each.
    package func render(_ model: ScreenModel, tiles: [Tile]) -> [String] {
        let geometry = ScreenGeometry(columns: model.columns, rows: model.rows)
        var grid = Array(repeating: Array(repeating: Glyph(), count: model.columns), count: model.rows)
        put(model.title, row: 0, in: &grid, style: Glyph(inverse: true), fill: true)
        drawContent(model, tiles: tiles, geometry: geometry, into: &grid)
        let statusRow = 1 + geometry.drawingRows
        let bottom = [(statusLine(model.status), Glyph(bold: true)), (detailLine(model.status), Glyph()), (model.footer, Glyph(faint: true))]
        for (offset, (text, style)) in bottom.enumerated() where statusRow + offset < model.rows {
            put(text, row: statusRow + offset, in: &grid, style: style, fill: true)
        }
        return grid.map(encode)
    }

    private func drawContent(_ model: ScreenModel, tiles: [Tile], geometry: ScreenGeometry, into grid: inout [[Glyph]]) {
        let drawn = geometry.drawnRect(for: model.viewport)
        let pointsPerRow = drawn.height / Double(geometry.drawingRows)
        let pointsPerColumn = model.viewport.width / Double(geometry.viewportColumns)
        let firstViewportRow = geometry.rowsAbove
        let lastViewportRow = geometry.rowsAbove + geometry.viewportRows - 1
        for tile in tiles {
            // The terminal cells whose centres the tile covers.
            let top = Int(((tile.frame.minY - drawn.minY) / pointsPerRow - 0.5).rounded(.up))
            let bottom = Int(((tile.frame.maxY - drawn.minY) / pointsPerRow - 0.5).rounded(.up)) - 1
            let left = Int(((tile.frame.minX - drawn.minX) / pointsPerColumn - 0.5).rounded(.up))
            let right = Int(((tile.frame.maxX - drawn.minX) / pointsPerColumn - 0.5).rounded(.up)) - 1
            guard top <= bottom, left <= right else { continue }
            let firstRow = max(top, 0), lastRow = min(bottom, geometry.drawingRows - 1)
            guard firstRow <= lastRow else { continue }
            let labelRow = max(firstRow, min(lastRow, top + (bottom - top) / 2))
            for row in firstRow...lastRow {
                let inside = (firstViewportRow...lastViewportRow).contains(row)
                let style = tileStyle(tile.state, inside: inside)
                let screenRow = 1 + row
                for column in left...right {
                    let x = geometry.firstColumn + column
                    guard x >= 0, x < model.columns else { continue }
                    grid[screenRow][x] = style
                }
                if model.layout == .list, case .shown(let data) = tile.state {
                    drawThumbnail(data, row: screenRow, from: geometry.firstColumn + left + 1, inside: inside, into: &grid)
                }
                if row == labelRow {
                    let label = self.label(for: tile, layout: model.layout)
                    let start = geometry.firstColumn + left + (model.layout == .list ? 11 : 1)
                    var text = style
                    text.foreground = textColor(tile.state, inside: inside)
                    text.bold = inside
                    text.faint = !inside
                    putText(label, row: screenRow, from: start, limit: geometry.firstColumn + right, in: &grid, style: text)
                }
            }
        }
        // The viewport's frame: bars at both sides of the rows inside, corners at its ends.
        let leftBar = geometry.firstColumn - 1, rightBar = geometry.firstColumn + geometry.viewportColumns
        for row in firstViewportRow...lastViewportRow {
            let screenRow = 1 + row
            let (l, r): (Character, Character) = row == firstViewportRow ? ("┌", "┐") : (row == lastViewportRow ? ("└", "┘") : ("│", "│"))
            if leftBar >= 0 { grid[screenRow][leftBar] = Glyph(character: l, bold: true) }
            if rightBar < model.columns { grid[screenRow][rightBar] = Glyph(character: r, bold: true) }
        }
    }

    private func drawThumbnail(_ data: DisplayData, row: Int, from column: Int, inside: Bool, into grid: inout [[Glyph]]) {
        for (i, pixel) in data.thumbnail.enumerated() {
            let x = column + i
            guard x >= 0, x < grid[row].count else { continue }
            grid[row][x].background = inside ? pixel : pixel.darkened(0.55)
        }
    }

    private func tileStyle(_ state: Tile.State, inside: Bool) -> Glyph {
        switch state {
        case .shown(let data), .cached(let data):
            return Glyph(background: inside ? data.color : data.color.darkened(0.55))
        case .loading, .waiting:
            if inside { return Glyph(background: Self.blankCell) }
            return Glyph(background: state.isLoading ? Self.loadingCell : Self.waitingCell)
        case .blank:
            return Glyph(character: inside ? " " : "·", background: inside ? Self.blankCell : nil, foreground: Self.muted, faint: !inside)
        }
    }

    private func textColor(_ state: Tile.State, inside: Bool) -> RGB {
        switch state {
        case .shown, .cached: inside ? Self.dark : Self.light
        case .loading, .waiting, .blank: inside ? Self.dark : Self.muted
        }
    }

    private func label(for tile: Tile, layout: DemoLayout) -> String {
        let name = layout == .list ? tile.title : "#\(tile.index + 1)"
        switch tile.state {
        case .shown: return name
        case .cached: return "\(name) ✓ cached"
        case .loading: return "\(name) ◌ loading"
        case .waiting: return "\(name) … queued"
        case .blank: return "\(name) · not loaded"
        }
    }

    /// Offset and velocity, visible range, loads in flight, items cached, display-ready rate, cancels.
    private func statusLine(_ s: StatusFigures) -> String {
        let visible = s.visible.map { "#\($0.lowerBound + 1)–#\($0.upperBound + 1)" } ?? "none"
        return String(format: "offset %.0f pt  v %+.0f pt/s  visible %@  in flight %d  cached %d  ready %@  cancels %d",
                      s.offset + 0, s.velocity + 0, visible, s.inFlight, s.cached, formatPercent(s.displayReadyRate), s.loadsCancelled)
    }

    /// The figures behind the status line, and what the markers mean.
    private func detailLine(_ s: StatusFigures) -> String {
        let estimate = s.expectedLatencyMs.map { String(format: "%.0f ms", $0) } ?? "–"
        let wire = s.wire.map { "  \($0.text)" } ?? ""
        return "queued \(s.queued)  seen \(s.appearances)  p90 \(estimate)  \(formatMemory(s))\(wire) │ dimmed: outside the frame  ✓ cached  ◌ loading  … queued"
    }

    private func put(_ text: String, row: Int, in grid: inout [[Glyph]], style: Glyph, fill: Bool) {
        if fill { for x in grid[row].indices { grid[row][x] = style } }
        putText(text, row: row, from: 0, limit: grid[row].count - 1, in: &grid, style: style)
    }

    private func putText(_ text: String, row: Int, from start: Int, limit: Int, in grid: inout [[Glyph]], style: Glyph) {
        guard row >= 0, row < grid.count else { return }
        var x = start
        for character in text {
            guard x <= limit, x < grid[row].count else { break }
            if x >= 0 {
                var glyph = style
                glyph.character = character
                if style.background == nil { glyph.background = grid[row][x].background }
                grid[row][x] = glyph
            }
            x += 1
        }
    }

    private func encode(_ line: [Glyph]) -> String {
        var out = ""
        var current: Glyph?
        for glyph in line {
            if colorMode != .none {
                var style = glyph
                style.character = " "
                if current != style {
                    out += sgr(style)
                    current = style
                }
            }
            out.append(glyph.character)
        }
        if colorMode != .none { out += "\u{1B}[0m" }
        return out
    }

    private func sgr(_ g: Glyph) -> String {
        var codes = ["0"]
        if g.bold { codes.append("1") }
        if g.faint { codes.append("2") }
        if g.inverse { codes.append("7") }
        if let fg = g.foreground { codes.append(color(fg, foreground: true)) }
        if let bg = g.background { codes.append(color(bg, foreground: false)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private func color(_ c: RGB, foreground: Bool) -> String {
        let lead = foreground ? "38" : "48"
        switch colorMode {
        case .trueColor:
            return "\(lead);2;\(c.r);\(c.g);\(c.b)"
        case .palette256, .none:
            func level(_ v: UInt8) -> Int { v < 48 ? 0 : (v < 115 ? 1 : (Int(v) - 35) / 40) }
            return "\(lead);5;\(16 + 36 * level(c.r) + 6 * level(c.g) + level(c.b))"
        }
    }
}

extension Tile.State {
    var isLoading: Bool { if case .loading = self { true } else { false } }
}
