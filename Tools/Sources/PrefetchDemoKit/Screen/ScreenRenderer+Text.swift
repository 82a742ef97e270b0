import Foundation

extension ScreenRenderer {
    /// The phrases of `text`: the parts between runs of two or more spaces.
    package static func phrases(_ text: String) -> [String] {
        text.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `text` cut to `width` characters, ending in `…` when it was longer.
    static func fit(_ text: String, width: Int) -> String {
        guard text.count > width else { return text }
        guard width > 1 else { return String(text.prefix(max(0, width))) }
        return String(text.prefix(width - 1)) + "…"
    }

    /// `phrases` in lines of at most `width` characters, two spaces between phrases on a line,
    /// at most `lines` lines. A phrase never splits across lines unless it is longer than a whole
    /// line, which then breaks between words (a word longer than a line ends in `…`); when
    /// phrases remain after the last line, it ends in `…`.
    package static func wrap(_ phrases: [String], width: Int, lines: Int) -> [String] {
        guard width > 1, lines > 0 else { return [] }
        let pieces = phrases.flatMap { $0.count <= width ? [$0] : words(of: $0, width: width) }
        var result: [String] = []
        var current = ""
        for (index, piece) in pieces.enumerated() {
            let candidate = current.isEmpty ? piece : current + "  " + piece
            if candidate.count <= width {
                current = candidate
                continue
            }
            result.append(current)
            if result.count == lines {
                // No room for the rest: the last line says so.
                result[lines - 1] = fit(result[lines - 1] + "  " + pieces[index...].joined(separator: "  "), width: width)
                return result
            }
            current = piece
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// `phrase` in parts of at most `width` characters, broken between words.
    static func words(of phrase: String, width: Int) -> [String] {
        var parts: [String] = []
        var current = ""
        for word in phrase.split(separator: " ").map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if candidate.count <= width {
                current = candidate
            } else {
                if !current.isEmpty { parts.append(current) }
                current = fit(word, width: width)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}
