import Foundation

/// What a `GET` with a `Range` field gets (RFC 9110, 14.2 and 13.1.5): the whole body, one part of
/// it, or `416 Range Not Satisfiable`.
enum RangeAnswer: Equatable, Sendable {
    /// `200` with the whole body: no `Range`, a `Range` the server ignores (not `bytes`, several
    /// ranges, bad syntax), or an `If-Range` that does not match the body's entity tag.
    case whole
    /// `206` with bytes `first...last` of the body.
    case part(first: Int, last: Int)
    /// `416`: no byte of the body is in the range asked for.
    case unsatisfiable

    /// The answer to `range` (the `Range` field) and `ifRange` (the `If-Range` field) for a body of
    /// `length` bytes whose strong entity tag is `entityTag`.
    ///
    /// Accepts one range: `bytes=N-` (from N to the end), `bytes=N-M` (M past the end is the end)
    /// and `bytes=-K` (the last K bytes). `If-Range` must be the entity tag itself (a strong
    /// comparison); a date, a weak tag or another tag gets the whole body.
    static func answer(range: String?, ifRange: String?, entityTag: String, length: Int) -> RangeAnswer {
        guard let range else { return .whole }
        if let ifRange, ifRange.trimmingCharacters(in: .whitespaces) != entityTag { return .whole }
        let trimmed = range.trimmingCharacters(in: .whitespaces)
        // The unit is case-insensitive; the grammar has no space around "=".
        guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals].lowercased() == "bytes" else { return .whole }
        let spec = trimmed[trimmed.index(after: equals)...]
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        switch (number(firstText), number(lastText)) {
        case (.some(let first), .none) where lastText.isEmpty:
            return first < length ? .part(first: first, last: length - 1) : .unsatisfiable
        case (.some(let first), .some(let last)):
            guard first <= last else { return .whole }   // an invalid range is ignored
            return first < length ? .part(first: first, last: min(last, length - 1)) : .unsatisfiable
        case (.none, .some(let suffix)) where firstText.isEmpty:
            return suffix > 0 && length > 0 ? .part(first: max(0, length - suffix), last: length - 1) : .unsatisfiable
        default:
            return .whole
        }
    }

    /// A run of decimal digits (a value too large for `Int` is `Int.max`), or nil.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text) ?? Int.max
    }
}
