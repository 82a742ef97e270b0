import Foundation

/// The screen's lines as terminal text: SGR escapes for the glyphs' styles, in the renderer's colour mode.
extension ScreenRenderer {
    func encode(_ line: [Glyph]) -> String {
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

    func sgr(_ g: Glyph) -> String {
        var codes = ["0"]
        if g.bold { codes.append("1") }
        if g.faint { codes.append("2") }
        if g.inverse { codes.append("7") }
        if let fg = g.foreground { codes.append(color(fg, foreground: true)) }
        if let bg = g.background { codes.append(color(bg, foreground: false)) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    func color(_ c: RGB, foreground: Bool) -> String {
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
