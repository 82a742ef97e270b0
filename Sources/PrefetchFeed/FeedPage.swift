import PrefetchKit

/// One page of a feed: up to `limit` of the app's items from `offset`, and the whole feed's `total`.
///
/// `Item` is the app's own model type. A ``FeedPageLoader`` makes a page for each request, and
/// ``PagedFeed`` checks it against that request (``validate(offset:limit:)``) before it shows any
/// of its items. When the items are `Codable`, so is the page, as
/// `{"offset": …, "limit": …, "total": …, "items": […]}`.
public struct FeedPage<Item: Sendable>: Sendable {
    /// The index of the first item.
    public var offset: Int
    /// The page size asked for.
    public var limit: Int
    /// How many items the whole feed has.
    public var total: Int
    /// The items, at most `limit`.
    public var items: [Item]

    /// Creates a page.
    public init(offset: Int, limit: Int, total: Int, items: [Item]) {
        self.offset = offset
        self.limit = limit
        self.total = total
        self.items = items
    }
}

extension FeedPage: Equatable where Item: Equatable {}
extension FeedPage: Hashable where Item: Hashable {}
extension FeedPage: Encodable where Item: Encodable {}
extension FeedPage: Decodable where Item: Decodable {}

extension FeedPage {
    /// Checks that this page answers a request for at most `limit` items from `offset`: it starts
    /// at `offset` (0 or more), holds at most `limit` items, and its `total` is 0 or more and
    /// covers them.
    ///
    /// ``PagedFeed`` checks every page its loader returns, so a page that breaks a rule never puts
    /// one item's data in another's cell; a loader may call it first to report a bad page as an
    /// error of its own (one its retry policy retries, say).
    ///
    /// ```swift
    /// let page = FeedPage(offset: 100, limit: 50, total: 120, items: Array(100..<120))
    /// try page.validate(offset: 100, limit: 50)
    /// ```
    /// - Throws: `PrefetchError` with code `invalidArgument`, naming the request, the field and
    ///   the rule broken.
    /// - Complexity: O(1)
    public func validate(offset: Int, limit: Int) throws {
        func fail(_ rule: String) -> PrefetchError { PrefetchError(.invalidArgument, "the page for offset \(offset), limit \(limit): \(rule)") }
        guard self.offset == offset else { throw fail("offset must be \(offset), got \(self.offset)") }
        guard offset >= 0 else { throw fail("offset must be 0 or more, got \(offset)") }
        guard total >= 0 else { throw fail("total must be 0 or more, got \(total)") }
        guard items.count <= limit else { throw fail("at most \(limit) items expected, got \(items.count)") }
        // offset + count <= total, written so that no offset can overflow (total and count are 0 or more).
        guard items.isEmpty || offset <= total - items.count else {
            throw fail("\(items.count) items from offset \(offset) do not fit a total of \(total)")
        }
    }
}

/// Loads the pages of an app's feed, for a ``PagedFeed``: turns a request (an offset and a limit)
/// into a ``FeedPage`` of the app's items, from whatever its API answers.
///
/// The feed never asks for the same page twice at once, and checks what comes back against the
/// request (``FeedPage/validate(offset:limit:)``). A loader over an array already in memory, for a
/// preview or a test:
///
/// ```swift
/// struct ArrayPages<Item: Sendable>: FeedPageLoader {
///     let all: [Item]
///
///     func loadPage(offset: Int, limit: Int) async throws -> FeedPage<Item> {
///         let end = min(offset + limit, all.count)
///         return FeedPage(offset: offset, limit: limit, total: all.count, items: offset < end ? Array(all[offset..<end]) : [])
///     }
/// }
/// ```
public protocol FeedPageLoader<Item>: Sendable {
    /// The app's item type: what a page holds and ``PagedFeed/item(at:)`` returns.
    associatedtype Item: Sendable

    /// Loads up to `limit` items from `offset`. Should honour task cancellation.
    ///
    /// Throw an error that conforms to `RetryableError` to have ``FeedConfiguration/retry`` retry
    /// the load.
    func loadPage(offset: Int, limit: Int) async throws -> FeedPage<Item>
}
