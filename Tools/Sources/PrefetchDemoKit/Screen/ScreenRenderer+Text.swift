import Foundation

extension ScreenRenderer {
    /// The phrases of `text`: the parts between runs of two or more spaces.
    package static func phrases(_ text: String) -> [String] {
        text.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `text` cut to `width` characters, ending in `…` when it was longer.
    /// The title line in `width` characters: its long forms traded, one at a time and only while
    /// it does not fit, for short ones (a latency model's median for its whole description, a
    /// preview mode without its share, no program name, prefetching said only when off, tighter
    /// separators last), before ``fit(_:width:)`` cuts what is still too long.
    package static func fitTitle(_ title: String, width: Int) -> String {
        let shorter: [(pattern: String, template: String)] = [
            (#"logNormal\(median ([0-9.]+ ms), p99 [0-9.]+ ms\)"#, "median $1"),
            (#"fixed\(([0-9.]+ ms)\)"#, "$1 latency"),
            (#"previews (\w+)\([0-9.]+ %\)"#, "$1 previews"),
            (#"% failures"#, "% fail"),
            (#" Mbit/s link"#, " Mbit/s"),
            (#"prefetching (ON|OFF)"#, "prefetch $1"),
            (#"^ prefetch-demo · "#, " "),
            (#" Mbit/s · median ([0-9.]+ ms)"#, " Mbit/s, $1"),
            (#"script (\w+)"#, "$1"),
            (#" · prefetch ON"#, ""),
            (#" · "#, "·"),
        ]
        var text = title
        for (pattern, template) in shorter where text.count > width {
            text = text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        return fit(text, width: width)
    }

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
