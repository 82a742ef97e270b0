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
    /// `If-Range` may carry (RFC 9110, 13.1.5): a strong entity tag; else, when the response has no
    /// entity tag at all, a `Last-Modified` date that is strong, at least one second before the
    /// response's `Date`. A weak tag (`W/"…"`) or one that cannot be read is no validator, and rules
    /// out the date too: a client that has an entity tag must not send a date in `If-Range`.
    package static func of(entityTag: String?, lastModified: String?, date: String?) -> RangeValidator? {
        if let tag = entityTag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.count >= 2 && tag.hasPrefix("\"") && tag.hasSuffix("\"") ? .entityTag(tag) : nil
        }
        guard let lastModified = lastModified?.trimmingCharacters(in: .whitespaces),
              let modified = httpDate(lastModified), let sent = date.flatMap(httpDate),
              sent.timeIntervalSince(modified) >= 1 else { return nil }
        return .lastModified(lastModified)
    }

    /// Whether a response naming `entityTag` and `lastModified` is another version than the one
    /// this validator names: it carries the same kind of validator, and it differs (an entity tag
    /// by strong comparison, a date by the instant it names). A response without one says nothing.
    package func isContradicted(entityTag: String?, lastModified: String?) -> Bool {
        switch self {
        case .entityTag(let kept):
            guard let tag = entityTag?.trimmingCharacters(in: .whitespaces), !tag.isEmpty else { return false }
            return tag != kept
        case .lastModified(let kept):
            guard let date = lastModified?.trimmingCharacters(in: .whitespaces), !date.isEmpty else { return false }
            guard date != kept else { return false }
            guard let sent = Self.httpDate(date), let keptDate = Self.httpDate(kept) else { return true }
            return sent != keptDate
        }
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
        /// A `416`, a `206` whose range does not continue the kept bytes to the end of the same
        /// whole, or one that names another version (an `ETag` or `Last-Modified` that differs from
        /// the kept validator): drop the kept bytes and ask again without a range.
        case askAgain
        /// Not a 2xx, `416` or `206`: handled as without a range.
        case other
    }

    /// Decides how the response to `Range: bytes=N-` (N the kept bytes) continues this transfer;
    /// `entityTag` and `lastModified` are the response's fields of those names, when it has them.
    ///
    /// A server that honours `Range` but ignores `If-Range` may answer `206` for a changed
    /// resource; when the response names its version, a version other than the kept one is caught.
    ///
    /// `end`, when given, is where the request's range stops (exclusive: `Range: bytes=N-(end-1)`),
    /// so the `206` continues the kept bytes up to `end` or the whole body's end, whichever comes first.
    package func continuation(status: Int, contentRange: String?, entityTag: String? = nil,
                              lastModified: String? = nil, end: Int? = nil) -> Continuation {
        switch status {
        case 416: return .askAgain
        case 206:
            guard let range = contentRange.flatMap(ContentRange.parse), let complete = range.complete,
                  range.first == body.count, range.last == min(end ?? complete, complete) - 1,
                  totalLength.map({ $0 == complete }) ?? true,
                  !validator.isContradicted(entityTag: entityTag, lastModified: lastModified) else { return .askAgain }
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
        /// Set by ``close()``: nothing is kept any more.
        var closed = false
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
            guard !s.closed, size > 0, size <= maxBytes, maxCount > 0 else { return }
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
        state.withLock { s in s = State(closed: s.closed) }
    }

    /// Forgets every kept transfer and keeps none from now on: the loader was invalidated, and a
    /// transfer that ends after that has no later load to continue it.
    package func close() {
        state.withLock { $0 = State(closed: true) }
    }
}

/// Thrown inside a load when the server answered a request for the rest of a transfer with
/// `416` or a range that does not fit: the loader asks again for the whole body.
struct AskAgainFromFirstByte: Error {}
