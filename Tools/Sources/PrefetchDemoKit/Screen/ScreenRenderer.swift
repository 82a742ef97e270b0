import Foundation

/// Draws the sample's screen into lines of text: coloured blocks with ANSI escape codes, or
/// plain text (for tests).
///
/// The viewport sits in a frame; the rows above and below it show the content outside the bounds,
/// as the storyboard of Apple's sample does with clipping turned off, dimmed, so a person sees
/// which cells were prefetched before they scrolled in. The margins show the plan: a bracket at
/// the left for the requested window, a mark at the right for where the current fling rests,
/// and a map at the far right with both at a scale that fits them. Under the drawing, the status,
/// the plan in words, the legend and the keys, each wrapped at the terminal's width (a phrase
/// never cut in two; one longer than a whole line ends in `…`).
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

    struct Glyph: Equatable {
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
    private static let flownPastCell = RGB(r: 52, g: 34, b: 66)
    private static let withdrawnCell = RGB(r: 70, g: 30, b: 30)
    private static let dark = RGB(r: 20, g: 20, b: 20)
    private static let light = RGB(r: 235, g: 235, b: 235)
    private static let muted = RGB(r: 150, g: 150, b: 150)
    private static let windowMark = RGB(r: 80, g: 200, b: 220)
    private static let landingMark = RGB(r: 255, g: 190, b: 40)

    /// The marks of the screen, for the legend and the labels.
    package enum Mark {
        /// The window's bracket and the map's window.
        static let window: Character = "┃"
        /// Where the fling rests.
        static let landing: Character = "◆"
        /// The viewport on the map.
        static let viewport: Character = "█"
        /// The shading of a cell that holds only a preview.
        static let preview: Character = "░"
    }

    /// The legend: what the marks, the dimming and the labels mean.
    package static let legend = [
        "┃ requested window", "◆ where the fling rests", "█ map (right): the screen", "dim: off screen",
        "✓ cached", "◌ loading", "… queued", "▸ ahead ◂ behind: requested", "↷ flown past: skipped",
        "✕ withdrawn (plan moved on, m, p)", "· not loaded",
    ]

    /// What the shaded cell means, in the legend of a run with previews.
    package static let previewLegend = "\(Mark.preview) preview only: full to come"

    /// The legend of a run with or without previews: ``legend``, and with previews the preview
    /// cell after `✓ cached`.
    package static func legend(previews: Bool) -> [String] {
        guard previews else { return legend }
        var phrases = legend
        phrases.insert(previewLegend, at: (phrases.firstIndex(of: "✓ cached") ?? 0) + 1)
        return phrases
    }

    /// The lines under the drawing, with their style, for `model`'s width: the status (at most
    /// three lines), the plan (two), the legend (three; four with previews), the latest message (two) and the keys
    /// (two); with few rows the legend goes first, then the plan, so that the drawing keeps at
    /// least 6 rows.
    private func bottomLines(_ model: ScreenModel) -> [(text: String, style: Glyph)] {
        let width = model.columns
        let status = Self.wrap(statusPhrases(model.status), width: width, lines: 3).map { ($0, Glyph(bold: true)) }
        let plan = Self.wrap(planPhrases(model.plan), width: width, lines: 2).map { ($0, Glyph()) }
        // With previews the legend has one phrase more: a fourth line, so that 80 columns still show it whole.
        let legend = Self.wrap(Self.legend(previews: model.previews), width: width, lines: model.previews ? 4 : 3).map { ($0, Glyph(faint: true)) }
        let message = Self.wrap(Self.phrases(model.message ?? ""), width: width, lines: 2).map { ($0, Glyph(bold: true)) }
        let keys = message + Self.wrap(Self.phrases(model.footer), width: width, lines: 2).map { ($0, Glyph(faint: true)) }
        let room = max(0, model.rows - 1 - 6)
        for groups in [[status, plan, legend, keys], [status, plan, keys], [status, keys], [status]] {
            let lines = groups.flatMap { $0 }
            if lines.count <= room { return lines }
        }
        return Array(status.prefix(room))
    }

    /// The geometry of `model`'s screen: the drawing gets what the lines under it leave.
    package func geometry(for model: ScreenModel) -> ScreenGeometry {
        ScreenGeometry(columns: model.columns, rows: model.rows, bottomRows: bottomLines(model).count)
    }

    /// The screen as `rows` lines of `columns` cells each.
    package func render(_ model: ScreenModel, tiles: [Tile]) -> [String] {
        let bottom = bottomLines(model)
        let geometry = ScreenGeometry(columns: model.columns, rows: model.rows, bottomRows: bottom.count)
        var grid = Array(repeating: Array(repeating: Glyph(), count: model.columns), count: model.rows)
        put(Self.fitTitle(model.title, width: model.columns), row: 0, in: &grid, style: Glyph(inverse: true), fill: true)
        drawContent(model, tiles: tiles, geometry: geometry, into: &grid)
        drawPlan(model, geometry: geometry, into: &grid)
        let firstBottomRow = 1 + geometry.drawingRows
        for (offset, line) in bottom.enumerated() where firstBottomRow + offset < model.rows {
            put(line.text, row: firstBottomRow + offset, in: &grid, style: line.style, fill: true)
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
                var style = tileStyle(tile, inside: inside)
                // A preview's label row is unshaded, so that its label reads clearly.
                if row == labelRow, case .preview = tile.state { style.character = " " }
                let screenRow = 1 + row
                for column in left...right {
                    let x = geometry.firstColumn + column
                    guard x >= geometry.firstColumn, x < geometry.firstColumn + geometry.viewportColumns else { continue }
                    grid[screenRow][x] = style
                }
                if model.layout == .list, case .shown(let data) = tile.state {
                    drawThumbnail(data.thumbnail, row: screenRow, from: geometry.firstColumn + left + 1, inside: inside, into: &grid)
                } else if model.layout == .list, case .preview(let data, shown: true) = tile.state {
                    // A preview's thumbnail is coarse: every pixel the strip's mean colour.
                    let mean = Self.mean(data.thumbnail)
                    drawThumbnail(data.thumbnail.map { _ in mean }, row: screenRow, from: geometry.firstColumn + left + 1, inside: inside, into: &grid)
                }
                if row == labelRow {
                    let label = Self.label(for: tile, layout: model.layout)
                    let start = geometry.firstColumn + left + (model.layout == .list ? 11 : 1)
                    var text = style
                    text.foreground = textColor(tile.state, inside: inside)
                    text.bold = inside
                    text.faint = !inside
                    putText(label, row: screenRow, from: start, limit: min(geometry.firstColumn + right, geometry.firstColumn + geometry.viewportColumns - 1),
                            in: &grid, style: text)
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

    /// The window's bracket and the landing mark at the drawing's scale, and the map.
    private func drawPlan(_ model: ScreenModel, geometry: ScreenGeometry, into grid: inout [[Glyph]]) {
        let drawn = geometry.drawnRect(for: model.viewport)
        let rows = geometry.drawingRows
        let perRow = drawn.height / Double(rows)
        let windowStyle = Glyph(character: Mark.window, foreground: Self.windowMark, bold: true)
        let landingStyle = Glyph(character: Mark.landing, foreground: Self.landingMark, bold: true)
        let (top, bottom, perRowPoints) = (Double(drawn.minY), Double(drawn.maxY), Double(perRow))
        func span(_ row: Int) -> Range<Double> { (top + Double(row) * perRowPoints)..<(top + Double(row + 1) * perRowPoints) }
        func set(_ column: Int, _ row: Int, _ glyph: Glyph) {
            guard column >= 0, column < model.columns, row >= 0, row < rows else { return }
            grid[1 + row][column] = glyph
        }
        // At the drawing's scale: arrows at the edge where the window or the landing zone goes on out of sight.
        for run in model.plan.runs {
            for row in 0..<rows where span(row).overlaps(run.extent) { set(geometry.windowColumn, row, windowStyle) }
            var arrow = windowStyle
            if run.extent.lowerBound < top, run.extent.upperBound > top {
                arrow.character = "▲"
                set(geometry.windowColumn, 0, arrow)
            }
            if run.extent.upperBound > bottom, run.extent.lowerBound < bottom {
                arrow.character = "▼"
                set(geometry.windowColumn, rows - 1, arrow)
            }
        }
        if let landing = model.plan.landing {
            var any = false
            for row in 0..<rows where span(row).overlaps(landing.extent) {
                set(geometry.landingColumn, row, landingStyle)
                any = true
            }
            if !any {
                var arrow = landingStyle
                arrow.character = landing.extent.lowerBound >= bottom ? "▼" : "▲"
                set(geometry.landingColumn, arrow.character == "▼" ? rows - 1 : 0, arrow)
            }
        }
        // The map: the viewport, the window and the landing zone at a scale that fits them all.
        var low = min(top, Double(model.viewport.minY)), high = max(bottom, Double(model.viewport.maxY))
        for run in model.plan.runs { (low, high) = (min(low, run.extent.lowerBound), max(high, run.extent.upperBound)) }
        if let landing = model.plan.landing { (low, high) = (min(low, landing.extent.lowerBound), max(high, landing.extent.upperBound)) }
        let pad = Double(model.viewport.height) * 0.25
        (low, high) = (low - pad, high + pad)
        let scale = (high - low) / Double(rows)
        let viewportRange = Double(model.viewport.minY)..<Double(model.viewport.maxY)
        for row in 0..<rows {
            let part = (low + Double(row) * scale)..<(low + Double(row + 1) * scale)
            if let landing = model.plan.landing, part.overlaps(landing.extent) {
                set(geometry.mapColumn, row, landingStyle)
            } else if part.overlaps(viewportRange) {
                set(geometry.mapColumn, row, Glyph(character: Mark.viewport, bold: true))
            } else if model.plan.runs.contains(where: { part.overlaps($0.extent) }) {
                set(geometry.mapColumn, row, windowStyle)
            } else if part.upperBound > 0 {
                set(geometry.mapColumn, row, Glyph(character: "·", foreground: Self.muted, faint: true))
            }
        }
    }

    private func drawThumbnail(_ thumbnail: [RGB], row: Int, from column: Int, inside: Bool, into grid: inout [[Glyph]]) {
        for (i, pixel) in thumbnail.enumerated() {
            let x = column + i
            guard x >= 0, x < grid[row].count else { continue }
            grid[row][x].background = inside ? pixel : pixel.darkened(0.55)
        }
    }

    private func tileStyle(_ tile: Tile, inside: Bool) -> Glyph {
        switch tile.state {
        case .shown(let data), .cached(let data):
            return Glyph(background: inside ? data.color : data.color.darkened(0.55))
        case .preview(let data, _):
            // Pale and shaded: the colour washed towards the blank cell's, ░ in the colour over it.
            let pale = Self.mix(data.color, Self.blankCell, 0.6)
            return Glyph(character: Mark.preview, background: inside ? pale : pale.darkened(0.55),
                         foreground: inside ? data.color : data.color.darkened(0.55))
        case .loading, .waiting:
            if inside { return Glyph(background: Self.blankCell) }
            return Glyph(background: tile.state.isLoading ? Self.loadingCell : Self.waitingCell)
        case .blank:
            if inside { return Glyph(character: " ", background: Self.blankCell, foreground: Self.muted) }
            switch tile.reason {
            case .flownPast: return Glyph(character: "·", background: Self.flownPastCell, foreground: Self.muted, faint: true)
            case .withdrawn: return Glyph(character: "·", background: Self.withdrawnCell, foreground: Self.muted, faint: true)
            default: return Glyph(character: "·", foreground: Self.muted, faint: true)
            }
        }
    }

    private func textColor(_ state: Tile.State, inside: Bool) -> RGB {
        switch state {
        case .shown, .cached, .preview: inside ? Self.dark : Self.light
        case .loading, .waiting, .blank: inside ? Self.dark : Self.muted
        }
    }

    /// `a` mixed with `b`: `fraction` 0 keeps `a`, 1 gives `b`.
    static func mix(_ a: RGB, _ b: RGB, _ fraction: Double) -> RGB {
        func channel(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) + (Double(y) - Double(x)) * fraction).rounded()) }
        return RGB(r: channel(a.r, b.r), g: channel(a.g, b.g), b: channel(a.b, b.b))
    }

    /// The mean colour of `pixels` (black for none).
    static func mean(_ pixels: [RGB]) -> RGB {
        guard !pixels.isEmpty else { return RGB(r: 0, g: 0, b: 0) }
        func channel(_ value: KeyPath<RGB, UInt8>) -> UInt8 {
            UInt8((Double(pixels.reduce(0) { $0 + Int($1[keyPath: value]) }) / Double(pixels.count)).rounded())
        }
        return RGB(r: channel(\.r), g: channel(\.g), b: channel(\.b))
    }

    /// A tile's label: its name, what it has, and why.
    package static func label(for tile: Tile, layout: DemoLayout) -> String {
        let name = layout == .list ? tile.title : "#\(tile.index + 1)"
        let why: String
        switch tile.reason {
        case .ahead: why = " ▸ ahead"
        case .behind: why = " ◂ behind"
        case .landing: why = " ◆ landing"
        case .withdrawn: why = " ✕ withdrawn"
        case .flownPast: why = " ↷ flown past"
        case .onScreen, .none: why = ""
        }
        switch tile.state {
        case .shown: return name
        case .cached: return "\(name) ✓ cached\(why)"
        case .preview(_, let shown): return "\(name) \(Mark.preview) preview\(shown ? "" : " cached")\(why)"
        case .loading: return "\(name) ◌ loading\(why)"
        case .waiting: return "\(name) … queued\(why)"
        case .blank:
            switch tile.reason {
            case .flownPast: return "\(name) ↷ flown past, not requested"
            case .withdrawn: return "\(name) ✕ withdrawn, not loaded"
            default: return "\(name) · not loaded"
            }
        }
    }

    /// Offset and velocity, visible range, loads, items cached, display-ready rate, cancels, the
    /// latency estimate, memory and the bytes on the wire: one phrase each.
    private func statusPhrases(_ s: StatusFigures) -> [String] {
        let visible = s.visible.map { "#\($0.lowerBound + 1)–#\($0.upperBound + 1)" } ?? "none"
        let estimate = s.expectedLatencyMs.map { String(format: "%.0f ms", $0) } ?? "–"
        var phrases = [
            String(format: "offset %.0f pt", s.offset + 0), String(format: "v %+.0f pt/s", s.velocity + 0), "visible \(visible)",
            "in flight \(s.inFlight)", "queued \(s.queued)", "cached \(s.cached)", "ready \(formatPercent(s.displayReadyRate))",
            "cancels \(s.loadsCancelled)", "seen \(s.appearances)", "p90 \(estimate)", formatMemory(s),
        ]
        if let previews = s.previewsOnScreen { phrases.append("\(Mark.preview) previews \(previews)") }
        if let wire = s.wire { phrases += wire.phrases }
        return phrases
    }

    /// The plan in words: the window, where the fling rests, what was skipped and withdrawn.
    private func planPhrases(_ plan: PlanFigures) -> [String] {
        var phrases: [String] = []
        if !plan.prefetching {
            phrases.append("plan: prefetching off (p), nothing requested ahead")
        } else if let window = plan.window {
            let runs = plan.runs.count > 1 ? " in \(plan.runs.count) runs" : ""
            phrases.append("plan: window #\(window.lowerBound + 1)–#\(window.upperBound + 1)\(runs), \(plan.requested) requested")
        } else {
            phrases.append("plan: nothing requested")
        }
        if let landing = plan.landing {
            let what = landing.kind == .fling ? "fling rests" : "scroll ends"
            let items = landing.items.map { ": #\($0.lowerBound + 1)–#\($0.upperBound + 1)" } ?? ""
            phrases.append(String(format: "◆ %@ at %.0f pt (%+.0f)%@", what, landing.extent.lowerBound + 0, landing.distance + 0, items))
        }
        phrases.append("↷ \(plan.flownPast) flown past")
        phrases.append("✕ \(plan.withdrawn) withdrawn")
        return phrases
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

}

