import PrefetchFeed
import PrefetchKit
import Testing

/// `FeedPage.validate(offset:limit:)`: the product's page rules, for any item type.
@Suite("FeedPage.validate")
struct FeedPageValidateTests {
    @Test("a page that answers its request passes")
    func valid() throws {
        try FeedPage(offset: 100, limit: 50, total: 120, items: Array(100..<120)).validate(offset: 100, limit: 50)
        try FeedPage(offset: 100, limit: 50, total: 150, items: Array(repeating: "x", count: 50)).validate(offset: 100, limit: 50)
        try FeedPage<Int>(offset: 2_000, limit: 50, total: 1_000, items: []).validate(offset: 2_000, limit: 50)
    }

    @Test("a page that breaks a rule is refused, naming the request, the value and the rule", arguments: [
        (FeedPage(offset: 90, limit: 50, total: 1_000, items: [1]), "the page for offset 100, limit 50: offset must be 100, got 90"),
        (FeedPage(offset: 100, limit: 50, total: -1, items: []), "the page for offset 100, limit 50: total must be 0 or more, got -1"),
        (FeedPage(offset: 100, limit: 50, total: 1_000, items: Array(0..<51)), "the page for offset 100, limit 50: at most 50 items expected, got 51"),
        (FeedPage(offset: 100, limit: 50, total: 101, items: [1, 2]), "the page for offset 100, limit 50: 2 items from offset 100 do not fit a total of 101"),
    ])
    func refused(page: FeedPage<Int>, message: String) {
        let error = #expect(throws: PrefetchError.self) { try page.validate(offset: 100, limit: 50) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == message)
    }

    @Test("extreme offsets and totals give an error or pass, never a trap")
    func extremes() throws {
        for (offset, total) in [(Int.max, Int.max), (Int.min, 0), (Int.max, 0), (Int.min, Int.max), (0, Int.max)] {
            let page = FeedPage(offset: offset, limit: 50, total: total, items: [1, 2, 3])
            let fits = offset >= 0 && offset <= total - 3
            if fits {
                try page.validate(offset: offset, limit: 50)
            } else {
                #expect(throws: PrefetchError.self) { try page.validate(offset: offset, limit: 50) }
            }
        }
    }
}
