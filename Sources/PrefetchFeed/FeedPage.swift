import Foundation

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

/// Loads one page of the feed.
public protocol FeedPageLoader: Sendable {
    /// Loads up to `limit` items from `offset`. Should honour task cancellation.
    func loadPage(offset: Int, limit: Int) async throws -> FeedPage
}
