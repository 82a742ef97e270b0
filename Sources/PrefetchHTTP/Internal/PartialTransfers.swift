import Foundation
import PrefetchKit

/// What `If-Range` sends back, so that a server continues a transfer only while its resource is
/// the one whose first bytes the loader kept.
package enum RangeValidator: Hashable, Sendable {
    /// A strong entity tag, quotes included (`"abc"`).
    case entityTag(String)
    /// A `Last-Modified` date, as the server wrote it.
    case lastModified(String)

    /// The `If-Range` field's value.
    package var headerValue: String {
        switch self {
        case .entityTag(let tag): tag
        case .lastModified(let date): date
        }
    }

    /// The validator of a response with these header fields, or `nil` when it has none that
    /// `If-Range` may carry (RFC 9110, 13.1.5): a strong entity tag first; else a `Last-Modified`
    /// date that is strong, at least one second before the response's `Date`. A weak tag (`W/"…"`)
    /// or a date that cannot be read is no validator.
    package static func of(entityTag: String?, lastModified: String?, date: String?) -> RangeValidator? {
        if let tag = entityTag?.trimmingCharacters(in: .whitespaces), tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") {
            return .entityTag(tag)
        }
        guard let lastModified = lastModified?.trimmingCharacters(in: .whitespaces),
              let modified = httpDate(lastModified), let sent = date.flatMap(httpDate),
              sent.timeIntervalSince(modified) >= 1 else { return nil }
        return .lastModified(lastModified)
    }

    /// Reads an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the one form servers must send.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

/// A `Content-Range: bytes first-last/complete` field (`complete` nil for `*`).
package struct ContentRange: Hashable, Sendable {
    package var first: Int
    package var last: Int
    package var complete: Int?

    /// Parses `bytes first-last/complete` or `bytes first-last/*`; nil for anything else,
    /// an unsatisfied range (`bytes */N`) included.
    package static func parse(_ text: String) -> ContentRange? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bytes" else { return nil }
        let spec = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = decimal(bounds[0]), let last = decimal(bounds[1]), first <= last else { return nil }
        if spec[1] == "*" { return ContentRange(first: first, last: last, complete: nil) }
        guard let complete = decimal(spec[1]), last < complete else { return nil }
        return ContentRange(first: first, last: last, complete: complete)
    }

    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }
}

/// The first bytes of a stopped transfer, with what is needed to ask for the rest.
package struct PartialTransfer: Hashable, Sendable {
    /// The bytes received, from the first byte of the body.
    package var body: Data
    /// The response's validator, sent back as `If-Range`.
    package var validator: RangeValidator
    /// The whole body's length, when the response declared it.
    package var totalLength: Int?

    package init(body: Data, validator: RangeValidator, totalLength: Int?) {
        self.body = body
        self.validator = validator
        self.totalLength = totalLength
    }

    /// What to do with the response to a request for the rest of this transfer.
    package enum Continuation: Equatable, Sendable {
        /// A `206` with the bytes right after the kept ones, to the end: continue the kept bytes;
        /// the body is whole at `total` bytes.
        case append(total: Int)
        /// A `200` (or another 2xx but `206`): the whole body from its first byte; the kept bytes are dropped.
        case startOver
        /// A `416`, or a `206` whose range does not continue the kept bytes to the end of the same
        /// whole: drop the kept bytes and ask again without a range.
        case askAgain
        /// Not a 2xx, `416` or `206`: handled as without a range.
        case other
    }

    /// Decides how the response to `Range: bytes=N-` (N the kept bytes) continues this transfer.
    package func continuation(status: Int, contentRange: String?) -> Continuation {
        switch status {
        case 416: return .askAgain
        case 206:
            guard let range = contentRange.flatMap(ContentRange.parse), let complete = range.complete,
                  range.first == body.count, range.last == complete - 1,
                  totalLength.map({ $0 == complete }) ?? true else { return .askAgain }
            return .append(total: complete)
        default: return (200..<300).contains(status) ? .startOver : .other
        }
    }
}

/// The stopped transfers an ``HTTPLoader`` keeps, by URL: at most `maxCount` of them and
/// `maxBytes` bytes in all, the least recently kept forgotten first.
package final class PartialTransferStore: Sendable {
    private struct Entry: Sendable {
        var partial: PartialTransfer
        var sequence: UInt64
    }

    private struct State: Sendable {
        var entries: [URL: Entry] = [:]
        var bytes = 0
        var sequence: UInt64 = 0
    }

    package let maxCount: Int
    package let maxBytes: Int
    private let state = Locked(State())

    package init(maxCount: Int, maxBytes: Int) {
        self.maxCount = max(0, maxCount)
        self.maxBytes = max(0, maxBytes)
    }

    /// How many transfers are kept, and their bytes.
    package var usage: (count: Int, bytes: Int) { state.withLock { ($0.entries.count, $0.bytes) } }

    /// Removes and returns the transfer kept for `url`, if any.
    package func take(_ url: URL) -> PartialTransfer? {
        state.withLock { s in
            guard let entry = s.entries.removeValue(forKey: url) else { return nil }
            s.bytes -= entry.partial.body.count
            return entry.partial
        }
    }

    /// Keeps `partial` for `url` in place of what was kept for it, forgetting the least recently
    /// kept transfers until both bounds hold. An empty transfer, or one over `maxBytes`, is not kept.
    package func keep(_ partial: PartialTransfer, for url: URL) {
        let size = partial.body.count
        let maxCount = maxCount, maxBytes = maxBytes
        state.withLock { s in
            if let old = s.entries.removeValue(forKey: url) { s.bytes -= old.partial.body.count }
            guard size > 0, size <= maxBytes, maxCount > 0 else { return }
            while s.entries.count >= maxCount || s.bytes + size > maxBytes {
                guard let oldest = s.entries.min(by: { $0.value.sequence < $1.value.sequence }) else { break }
                s.entries[oldest.key] = nil
                s.bytes -= oldest.value.partial.body.count
            }
            s.sequence += 1
            s.entries[url] = Entry(partial: partial, sequence: s.sequence)
            s.bytes += size
        }
    }

    /// Forgets every kept transfer.
    package func removeAll() {
        state.withLock { $0 = State() }
    }
}

/// Thrown inside a load when the server answered a request for the rest of a transfer with
/// `416` or a range that does not fit: the loader asks again for the whole body.
struct AskAgainFromFirstByte: Error {}
