import Foundation
@testable import PrefetchHTTP
import Testing

/// The rules of resumable loads on their own (no server): which responses give a validator, how
/// a `Content-Range` is read, how the answer to a range request continues the kept bytes, and
/// how the kept transfers stay within their bounds. The loopback tests against the local server
/// live in the tools package (`Tools/Tests/PrefetchHTTPLoopbackTests/ResumeTests.swift`).
@Suite("HTTPLoader resumption rules")
struct ResumptionTests {
    @Test("a strong entity tag is the validator; a weak one is none")
    func entityTags() {
        #expect(RangeValidator.of(entityTag: "\"abc\"", lastModified: nil, date: nil) == .entityTag("\"abc\""))
        #expect(RangeValidator.of(entityTag: " \"abc\" ", lastModified: nil, date: nil) == .entityTag("\"abc\""))
        #expect(RangeValidator.of(entityTag: "W/\"abc\"", lastModified: nil, date: nil) == nil)
        #expect(RangeValidator.of(entityTag: "abc", lastModified: nil, date: nil) == nil)
        #expect(RangeValidator.of(entityTag: nil, lastModified: nil, date: nil) == nil)
        // The tag wins over a date.
        let both = RangeValidator.of(entityTag: "\"t\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT", date: "Sun, 06 Nov 1994 09:00:00 GMT")
        #expect(both == .entityTag("\"t\""))
        #expect(both?.headerValue == "\"t\"")
    }

    @Test("Last-Modified is a validator only when strong, a second or more before Date, and only without an ETag")
    func lastModified() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(RangeValidator.of(entityTag: nil, lastModified: modified, date: "Sun, 06 Nov 1994 08:49:38 GMT") == .lastModified(modified))
        // RFC 9110, 13.1.5: a client that has an entity tag, even a weak or unreadable one, sends no date.
        #expect(RangeValidator.of(entityTag: "W/\"weak\"", lastModified: modified, date: "Mon, 07 Nov 1994 00:00:00 GMT") == nil)
        #expect(RangeValidator.of(entityTag: "abc", lastModified: modified, date: "Mon, 07 Nov 1994 00:00:00 GMT") == nil)
        #expect(RangeValidator.of(entityTag: " ", lastModified: modified, date: "Mon, 07 Nov 1994 00:00:00 GMT") == .lastModified(modified))
        #expect(RangeValidator.of(entityTag: nil, lastModified: modified, date: modified) == nil)          // same second: weak
        #expect(RangeValidator.of(entityTag: nil, lastModified: modified, date: nil) == nil)              // no Date: cannot tell
        #expect(RangeValidator.of(entityTag: nil, lastModified: "yesterday", date: "Sun, 06 Nov 1994 09:00:00 GMT") == nil)
    }

    @Test("Content-Range is read strictly", arguments: [
        ("bytes 600-999/1000", ContentRange(first: 600, last: 999, complete: 1_000)),
        ("BYTES 0-0/1", ContentRange(first: 0, last: 0, complete: 1)),
        ("bytes 5-9/*", ContentRange(first: 5, last: 9, complete: nil)),
        ("bytes */1000", nil), ("bytes 10-5/1000", nil), ("bytes 0-1000/1000", nil), ("bytes -5-9/10", nil),
        ("items 0-9/10", nil), ("bytes 0-9", nil), ("bytes a-9/10", nil), ("", nil), ("bytes 0-99999999999999999999/1", nil),
    ] as [(String, ContentRange?)])
    func contentRange(text: String, expected: ContentRange?) {
        #expect(ContentRange.parse(text) == expected, "\(text)")
    }

    @Test("the answer to a range request: 206 that continues appends, 200 starts over, 416 or a misfit asks again")
    func continuation() {
        let kept = PartialTransfer(body: Data(count: 600), validator: .entityTag("\"t\""), totalLength: 1_000)
        #expect(kept.continuation(status: 206, contentRange: "bytes 600-999/1000") == .append(total: 1_000))
        #expect(kept.continuation(status: 200, contentRange: nil) == .startOver)
        #expect(kept.continuation(status: 203, contentRange: nil) == .startOver)
        #expect(kept.continuation(status: 416, contentRange: "bytes */1000") == .askAgain)
        #expect(kept.continuation(status: 206, contentRange: "bytes 500-999/1000") == .askAgain)     // not right after the kept bytes
        #expect(kept.continuation(status: 206, contentRange: "bytes 600-799/1000") == .askAgain)     // not to the end
        #expect(kept.continuation(status: 206, contentRange: "bytes 600-1199/1200") == .askAgain)    // another whole
        #expect(kept.continuation(status: 206, contentRange: "bytes 600-999/*") == .askAgain)        // whole unknown
        #expect(kept.continuation(status: 206, contentRange: nil) == .askAgain)
        #expect(kept.continuation(status: 503, contentRange: nil) == .other)
        var unknownLength = kept
        unknownLength.totalLength = nil
        #expect(unknownLength.continuation(status: 206, contentRange: "bytes 600-1199/1200") == .append(total: 1_200))
    }

    @Test("a 206 that names another version than the kept one asks again; one that names none, or the same, continues")
    func continuationChecksTheVersion() {
        let tagged = PartialTransfer(body: Data(count: 600), validator: .entityTag("\"t\""), totalLength: 1_000)
        let fits = "bytes 600-999/1000"
        #expect(tagged.continuation(status: 206, contentRange: fits, entityTag: "\"t\"") == .append(total: 1_000))
        #expect(tagged.continuation(status: 206, contentRange: fits, entityTag: nil) == .append(total: 1_000))
        #expect(tagged.continuation(status: 206, contentRange: fits, entityTag: "\"u\"") == .askAgain)
        #expect(tagged.continuation(status: 206, contentRange: fits, entityTag: "W/\"t\"") == .askAgain)   // strong comparison
        #expect(tagged.continuation(status: 206, contentRange: fits, lastModified: "Mon, 07 Nov 1994 00:00:00 GMT") == .append(total: 1_000))
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        let dated = PartialTransfer(body: Data(count: 600), validator: .lastModified(modified), totalLength: 1_000)
        #expect(dated.continuation(status: 206, contentRange: fits, lastModified: modified) == .append(total: 1_000))
        #expect(dated.continuation(status: 206, contentRange: fits, lastModified: "Mon, 07 Nov 1994 00:00:00 GMT") == .askAgain)
        #expect(dated.continuation(status: 206, contentRange: fits, lastModified: "someday") == .askAgain)
        #expect(dated.continuation(status: 206, contentRange: fits, entityTag: "\"new\"") == .append(total: 1_000))
    }

    @Test("kept transfers stay within their count, least recently kept forgotten first")
    func countBound() {
        let store = PartialTransferStore(maxCount: 2, maxBytes: 1_000)
        let urls = (0..<3).map { URL(string: "http://a.example/\($0)")! }
        for (i, url) in urls.enumerated() { store.keep(partial(bytes: 10 + i), for: url) }
        #expect(store.usage.count == 2)
        #expect(store.usage.bytes == 11 + 12)
        #expect(store.take(urls[0]) == nil)
        #expect(store.take(urls[1])?.body.count == 11)
        #expect(store.take(urls[1]) == nil)   // taken once
        #expect(store.usage.count == 1)
    }

    @Test("kept transfers stay within their bytes; one larger than the bound, or empty, is not kept")
    func byteBound() {
        let store = PartialTransferStore(maxCount: 10, maxBytes: 100)
        let a = URL(string: "http://a.example/a")!, b = URL(string: "http://a.example/b")!, c = URL(string: "http://a.example/c")!
        store.keep(partial(bytes: 60), for: a)
        store.keep(partial(bytes: 30), for: b)
        store.keep(partial(bytes: 50), for: c)        // 140 > 100: the oldest (a) goes
        #expect(store.usage.count == 2)
        #expect(store.usage.bytes == 80)
        #expect(store.take(a) == nil)
        store.keep(partial(bytes: 101), for: a)
        #expect(store.take(a) == nil)
        store.keep(partial(bytes: 0), for: a)
        #expect(store.take(a) == nil)
        store.keep(partial(bytes: 40), for: b)        // replaces b's 30
        #expect(store.usage.bytes == 90)
        store.removeAll()
        #expect(store.usage.count == 0)
        #expect(store.usage.bytes == 0)
        store.keep(partial(bytes: 10), for: a)
        #expect(store.usage.count == 1)
    }

    @Test("a closed store (the loader was invalidated) forgets everything and keeps nothing more")
    func closed() {
        let store = PartialTransferStore(maxCount: 10, maxBytes: 100)
        let a = URL(string: "http://a.example/a")!
        store.keep(partial(bytes: 10), for: a)
        store.close()
        #expect(store.usage.count == 0)
        store.keep(partial(bytes: 10), for: a)
        #expect(store.take(a) == nil)
        store.removeAll()
        store.keep(partial(bytes: 10), for: a)
        #expect(store.usage.count == 0)
    }

    @Test("a task cancelled by invalidate() fails with invalidated; any other cancellation is CancellationError")
    func cancelledByInvalidation() {
        let url = URL(string: "http://a.example/a")!
        let error = SessionDelegate.translate(URLError(.cancelled), url: url, invalidated: true) as? HTTPLoaderError
        #expect(error?.code == .invalidated)
        #expect(error?.isRetryable == false)
        #expect(SessionDelegate.translate(URLError(.cancelled), url: url) is CancellationError)
    }

    @Test("bounds are checked when the loader is made, naming the value and the rule; 0 turns resuming off")
    func configuration() throws {
        var configuration = HTTPLoaderConfiguration()
        #expect(configuration.maxPartialTransfers == 16)
        #expect(configuration.maxPartialBytes == 8 * 1024 * 1024)
        #expect(try HTTPLoader<URL>(configuration: configuration).partials != nil)
        configuration.maxPartialTransfers = -1
        let count = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>(configuration: configuration) }
        #expect(count?.code == .invalidConfiguration)
        #expect(count?.message == "HTTPLoaderConfiguration maxPartialTransfers must be 0 (no resuming) or more, got -1")
        configuration = HTTPLoaderConfiguration()
        configuration.maxPartialBytes = -5
        let bytes = #expect(throws: HTTPLoaderError.self) { try HTTPLoader<URL>(configuration: configuration) }
        #expect(bytes?.message == "HTTPLoaderConfiguration maxPartialBytes must be 0 (no resuming) or more bytes, got -5")
        configuration = HTTPLoaderConfiguration()
        configuration.maxPartialBytes = 0
        #expect(try HTTPLoader<URL>(configuration: configuration).partials == nil)
        configuration = HTTPLoaderConfiguration()
        configuration.headers = ["range": "bytes=0-99"]   // the caller's own range: never resumed
        #expect(try HTTPLoader<URL>(configuration: configuration).partials == nil)
    }

    private func partial(bytes: Int) -> PartialTransfer {
        PartialTransfer(body: Data(repeating: 7, count: bytes), validator: .entityTag("\"x\""), totalLength: nil)
    }
}

/// `URLSessionTask.priority` from an RFC 9218 urgency.
@Suite("HTTPLoader task priority")
struct TaskPriorityTests {
    @Test("urgency 1 is URLSession's high priority, 3 its default, 5 its low; out of range is clamped")
    func taskPriorityFollowsTheUrgency() {
        #expect(Exchange.taskPriority(urgency: 1) == 0.75)
        #expect(Exchange.taskPriority(urgency: 3) == 0.5)
        #expect(Exchange.taskPriority(urgency: 5) == 0.25)
        #expect(Exchange.taskPriority(urgency: -4) == 0.875)
        #expect(Exchange.taskPriority(urgency: 12) == 0)
    }
}
