import Foundation
import PrefetchDemoKit
import PrefetchFeed
import PrefetchKit
import Testing

/// `FeedPage<FeedItem>.decode`: prefetch-server's feed page decoder, which the fuzzer drives.
@Suite("FeedPage.decode")
struct FeedPageDecodeTests {
    func body(offset: Int = 100, total: Int = 1_000, ids: [Int]) -> Data {
        let items = ids.map { ##"{"id": \##($0), "title": "Item \##($0)", "colour": "#000000", "thumbnailURL": "http://127.0.0.1/thumb/\##($0)"}"## }
        return Data(#"{"offset": \#(offset), "limit": 50, "total": \#(total), "items": [\#(items.joined(separator: ","))]}"#.utf8)
    }

    @Test("a page whose items sit at their indexes decodes")
    func valid() throws {
        let page = try FeedPage<FeedItem>.decode(body(ids: [100, 101, 102]), offset: 100, limit: 50)
        #expect(page.items.map(\.id) == [100, 101, 102])
        #expect(page.total == 1_000)
        #expect(try FeedPage<FeedItem>.decode(body(offset: 2_000, total: 1_000, ids: []), offset: 2_000, limit: 50).items.isEmpty)
    }

    @Test("a page that could put one item's data in another's cell is refused, naming the rule", arguments: [
        (100, 1_000, [101, 100], "items[0].id must be 100, got 101"),
        (100, 1_000, [100, 100], "items[1].id must be 101, got 100"),
        (90, 1_000, [90], "offset must be 100, got 90"),
        (100, -1, [Int](), "total must be 0 or more, got -1"),
        (100, 101, [100, 101], "2 items from offset 100 do not fit a total of 101"),
        (100, 1_000, Array(100..<151), "at most 50 items expected, got 51"),
    ])
    func refused(offset: Int, total: Int, ids: [Int], rule: String) {
        let error = #expect(throws: PrefetchError.self) { try FeedPage<FeedItem>.decode(body(offset: offset, total: total, ids: ids), offset: 100, limit: 50) }
        #expect(error?.message.contains(rule) == true, "\(String(describing: error?.message))")
    }

    @Test("bytes that are not a page give an error, not a crash")
    func notJSON() {
        for bytes in [Data(), Data("{".utf8), Data([0xFF, 0x00]), Data(#"{"offset": 1e400}"#.utf8)] {
            #expect(throws: PrefetchError.self) { try FeedPage<FeedItem>.decode(bytes, offset: 0, limit: 50) }
        }
    }
}
