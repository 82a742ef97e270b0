import Foundation
import PrefetchKit

/// One item of the feed: the metadata a cell shows before its thumbnail arrives.
public struct FeedItem: Codable, Sendable, Hashable, Identifiable {
    /// The item's id, also its index in the feed.
    public var id: Int
    /// The title.
    public var title: String
    /// A placeholder colour, as `#RRGGBB`.
    public var colour: String
    /// Where the thumbnail is.
    public var thumbnailURL: URL

    /// Creates an item.
    public init(id: Int, title: String, colour: String, thumbnailURL: URL) {
        self.id = id
        self.title = title
        self.colour = colour
        self.thumbnailURL = thumbnailURL
    }
}

/// One page of `/items`: `items` from `offset`, and the feed's `total` count.
public struct FeedPage: Codable, Sendable, Hashable {
    /// The index of the first item.
    public var offset: Int
    /// The page size asked for.
    public var limit: Int
    /// How many items the whole feed has.
    public var total: Int
    /// The items, at most `limit`.
    public var items: [FeedItem]

    /// Creates a page.
    public init(offset: Int, limit: Int, total: Int, items: [FeedItem]) {
        self.offset = offset
        self.limit = limit
        self.total = total
        self.items = items
    }
}

extension FeedPage {
    /// Decodes a page from a server's JSON and checks it against the request: the offset asked
    /// for, at most `limit` items, a total of 0 or more that covers them, and each item's id equal
    /// to its index in the feed. A page that breaks a rule could put one item's data in another's
    /// cell, so it is refused whole.
    ///
    /// ```swift
    /// let page = try FeedPage.decode(body, offset: 100, limit: 50)
    /// ```
    /// - Throws: `PrefetchError` with code `invalidArgument`, naming the field and the rule
    ///   (the decoder's error is its cause when the JSON does not decode).
    /// - Complexity: O(n) in the body's length.
    public static func decode(_ data: Data, offset: Int, limit: Int) throws -> FeedPage {
        let page: FeedPage
        do {
            page = try JSONDecoder().decode(FeedPage.self, from: data)
        } catch {
            throw PrefetchError(.invalidArgument, "the page body is not a feed page (\(data.count) bytes of JSON expected)", cause: error)
        }
        func fail(_ rule: String) -> PrefetchError { PrefetchError(.invalidArgument, "the page for offset \(offset), limit \(limit): \(rule)") }
        guard page.offset == offset else { throw fail("offset must be \(offset), got \(page.offset)") }
        guard page.total >= 0 else { throw fail("total must be 0 or more, got \(page.total)") }
        guard page.items.count <= limit else { throw fail("at most \(limit) items expected, got \(page.items.count)") }
        guard page.items.isEmpty || page.total - offset >= page.items.count else {
            throw fail("\(page.items.count) items from offset \(offset) do not fit a total of \(page.total)")
        }
        for (index, item) in page.items.enumerated() where item.id != offset + index {
            throw fail("items[\(index)].id must be \(offset + index), got \(item.id)")
        }
        return page
    }
}

/// Loads one page of the feed.
public protocol FeedPageLoader: Sendable {
    /// Loads up to `limit` items from `offset`. Should honour task cancellation.
    func loadPage(offset: Int, limit: Int) async throws -> FeedPage
}
