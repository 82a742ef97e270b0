/// Where a ``PrefetchController`` sends its decisions, and where it learns how loads go.
///
/// Once per frame (only when something changed) the controller sends one ``PrefetchUpdate``:
/// the items to request or re-prioritise, with their ``FetchPriority``, and the items to
/// withdraw. It reads ``expectedLatency`` and ``typicalLatency`` itself, once per frame before
/// planning it, so nobody copies a fetcher's statistics into a view.
///
/// An ``AsyncFetcher`` is a target through ``AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``.
///
/// ```swift
/// let controller = PrefetchController<Int>(policy: PrefetchPolicies.adaptive)
/// controller.target = fetcher.prefetchTarget { row in ids.indices.contains(row) ? ids[row] : nil }
/// ```
public protocol PrefetchTarget<Item>: AnyObject {
    /// What the controller plans for: an index path, a row number, a model's identifier.
    associatedtype Item: Hashable

    /// Applies one frame's decisions; see ``PrefetchUpdate`` for the order.
    func updatePrefetching(_ update: PrefetchUpdate<Item>)

    /// A latency to plan prefetching with, from starting a load to having its data (a high
    /// percentile, such as ``AsyncFetcher/expectedLatency``'s 90th); `nil` until measured.
    var expectedLatency: Duration? { get }

    /// How long a typical load takes (a median); `nil` until measured. The controller calls an
    /// item a fly-past when it will be on screen for less than this.
    ///
    /// The default is ``expectedLatency``.
    var typicalLatency: Duration? { get }

    /// How long a typical load of `item`'s data takes, when the target knows better than
    /// ``typicalLatency`` (it knows the item's size and the transfer rate); `nil` to plan the item
    /// with ``typicalLatency``. The controller asks about the items it ranks, so answer in O(1).
    /// The default is `nil`. An ``AsyncFetcher``'s target answers when it was given the items'
    /// sizes (``AsyncFetcher/prefetchTarget(identifier:expectedBytes:)``).
    func typicalLatency(of item: Item) -> Duration?

    /// How many items' data the target's memory holds at once (its memory budget over a typical
    /// value's size); `nil` for no limit. The controller then requests at most this many items,
    /// the most urgent first (visible items always). The default is `nil`.
    var prefetchCapacity: Int? { get }

    /// Memory pressure: keep in memory only the data of `items` (what is on screen and where a
    /// fling comes to rest). Called by ``PrefetchController/handleMemoryPressure()`` after it
    /// withdrew the other requests. The default does nothing.
    func trimMemory(keeping items: [Item])

    /// Whether the target can send a request's data to a data store only, leaving memory alone
    /// (``FetchDestination/store``). Under a memory budget the controller then sends the requests
    /// beyond ``prefetchCapacity`` with ``PrefetchRequest/destination`` `.store` instead of dropping
    /// them, and requests them again to memory as they come within it. The default is `false`; an
    /// ``AsyncFetcher``'s target answers whether the fetcher has a ``DataStore``.
    var acceptsStoreDestination: Bool { get }

    /// Whether the target can load an item's preview alone (``FetchQuality/preview``): an
    /// ``AsyncFetcher``'s target whose loader is a ``PreviewLoader``. Only then does a controller
    /// that plans previews (``PrefetchController/previews``) send preview requests. The default
    /// is `false`.
    var acceptsPreviews: Bool { get }
}

extension PrefetchTarget {
    /// ``expectedLatency``.
    public var typicalLatency: Duration? { expectedLatency }

    /// `nil`: every item is planned with ``typicalLatency``.
    public func typicalLatency(of item: Item) -> Duration? { nil }

    /// `nil`: no limit.
    public var prefetchCapacity: Int? { nil }

    /// Does nothing.
    public func trimMemory(keeping items: [Item]) {}

    /// `false`: requests beyond ``prefetchCapacity`` are dropped.
    public var acceptsStoreDestination: Bool { false }

    /// `false`: every request is for the full value.
    public var acceptsPreviews: Bool { false }
}

/// One request of a ``PrefetchUpdate``: an item, and how urgently its data is wanted.
public struct PrefetchRequest<Item: Hashable>: Hashable {
    /// The item.
    public var item: Item
    /// Its priority: set it on the item's prefetch interest (replacing an earlier one).
    public var priority: FetchPriority
    /// Where its data goes: ``FetchDestination/memory`` (ready to show), or, beyond what a memory
    /// budget holds, ``FetchDestination/store`` (sent only to a target with a data store: an
    /// ``AsyncFetcher``'s). A request again with another destination moves it (a promotion as the
    /// item comes near). A controller sends `store` only to a target whose
    /// ``PrefetchTarget/acceptsStoreDestination`` is `true`.
    public var destination: FetchDestination
    /// How much of its data: the full value, or a preview (a progressive prefix, a thumbnail)
    /// where the controller plans one (``PrefetchController/previews``). A request again at
    /// ``FetchQuality/full`` upgrades it as the item comes near. A controller sends `preview`
    /// only to a target whose ``PrefetchTarget/acceptsPreviews`` is `true`.
    public var quality: FetchQuality

    /// Creates a request whose data goes to `destination` (memory by default), at `quality` (full by default).
    @inlinable
    public init(item: Item, priority: FetchPriority, destination: FetchDestination = .memory, quality: FetchQuality = .full) {
        self.item = item
        self.priority = priority
        self.destination = destination
        self.quality = quality
    }
}

extension PrefetchRequest: Sendable where Item: Sendable {}

/// An item that a batch update moved: the same data under a new name (an index path after
/// insertions above it, for example).
public struct PrefetchMove<Item: Hashable>: Hashable {
    /// The item's name before the change.
    public var from: Item
    /// Its name after the change.
    public var to: Item

    /// Creates a move.
    @inlinable
    public init(from: Item, to: Item) {
        self.from = from
        self.to = to
    }
}

extension PrefetchMove: Sendable where Item: Sendable {}

/// One frame's decisions of a ``PrefetchController``.
///
/// Apply the parts in this order: ``removed``, ``moved``, ``withdrawals``, ``requests``.
/// ``removed`` and ``moved`` (only after a data change) name items as they were named before the
/// change; ``withdrawals`` and ``requests`` name them as they are named now. An item can be
/// removed and then requested in the same update (after a reload, when an index path names other
/// data): withdraw what was asked for under the old name, then ask under the new one. A target
/// that maps items to data (index paths to model identifiers) keeps the identifier it requested
/// under each item instead of looking it up again, since the data may have changed.
public struct PrefetchUpdate<Item: Hashable>: Hashable {
    /// Items a batch update renamed; the interest moves with them. Only after a data change.
    public var moved: [PrefetchMove<Item>]
    /// Items whose data is gone under their name from before the change (deleted, or every item
    /// after a reload): withdraw the interest, without the callbacks a classic UIKit prefetch
    /// data source gets for an item that left the prefetch window.
    public var removed: [Item]
    /// Items that left the plan: withdraw their interest (a consumer keeps its own).
    public var withdrawals: [Item]
    /// Items to request, or to re-prioritise when already requested, most urgent first.
    public var requests: [PrefetchRequest<Item>]

    /// Creates an update.
    @inlinable
    public init(moved: [PrefetchMove<Item>] = [], removed: [Item] = [], withdrawals: [Item] = [],
                requests: [PrefetchRequest<Item>] = []) {
        self.moved = moved
        self.removed = removed
        self.withdrawals = withdrawals
        self.requests = requests
    }

    /// Whether the update changes nothing.
    @inlinable
    public var isEmpty: Bool { moved.isEmpty && removed.isEmpty && withdrawals.isEmpty && requests.isEmpty }
}

extension PrefetchUpdate: Sendable where Item: Sendable {}
