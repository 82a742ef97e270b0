// prefetch-server's feed schema, as its clients read it. Self-contained (Foundation and the product
// only): Fuzz/Sources/FuzzFeedPage links this same file to fuzz the decoder.
import Foundation
import PrefetchFeed
import PrefetchKit

/// One item of prefetch-server's feed (`GET /items`): the metadata a cell shows before its
/// thumbnail arrives.
package struct FeedItem: Codable, Sendable, Hashable, Identifiable {
    /// The item's id, also its index in the feed.
    package var id: Int
    /// The title.
    package var title: String
    /// A placeholder colour, as `#RRGGBB`.
    package var colour: String
    /// Where the thumbnail is.
    package var thumbnailURL: URL

    /// Creates an item.
    package init(id: Int, title: String, colour: String, thumbnailURL: URL) {
        self.id = id
        self.title = title
        self.colour = colour
        self.thumbnailURL = thumbnailURL
    }
}

extension FeedPage<FeedItem> {
    /// Decodes a page of `GET /items?offset=&limit=` and checks it against the request: the
    /// product's rules (``FeedPage/validate(offset:limit:)``: the offset asked for, at most `limit`
    /// items, a total of 0 or more that covers them) and the server's own, each item's id equal to
    /// its index in the feed. A page that breaks a rule could put one item's data in another's
    /// cell, so it is refused whole.
    ///
    /// - Throws: `PrefetchError` with code `invalidArgument`, naming the field and the rule
    ///   (the decoder's error is its cause when the JSON does not decode).
    /// - Complexity: O(n) in the body's length.
    package static func decode(_ data: Data, offset: Int, limit: Int) throws -> FeedPage<FeedItem> {
        let page: FeedPage<FeedItem>
        do {
            page = try JSONDecoder().decode(FeedPage<FeedItem>.self, from: data)
        } catch {
            throw PrefetchError(.invalidArgument, "the page body is not a feed page (\(data.count) bytes of JSON expected)", cause: error)
        }
        try page.validate(offset: offset, limit: limit)
        for (index, item) in page.items.enumerated() where item.id != offset + index {
            throw PrefetchError(.invalidArgument, "the page for offset \(offset), limit \(limit): items[\(index)].id must be \(offset + index), got \(item.id)")
        }
        return page
    }
}
