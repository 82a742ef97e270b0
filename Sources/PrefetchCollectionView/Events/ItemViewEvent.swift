import Foundation

/// One callback a ``CollectionView`` or ``TableView`` made, with the view's time when it made it.
///
/// Set ``ItemScrollView/onEvent`` or attach an ``EventRecorder`` to receive them.
public struct ItemViewEvent: Hashable, Sendable, CustomStringConvertible {
    /// The kind of callback.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The item was sent to `prefetchItemsAt` / `prefetchRowsAt`.
        case prefetch
        /// The item was sent to `cancelPrefetchingForItemsAt` / `cancelPrefetchingForRowsAt`.
        case cancelPrefetch
        /// The view asked the data source for the item's cell (`cellForItemAt` / `cellForRowAt`).
        case cellRequest
        /// The item's cell came on screen (`willDisplay`).
        case willDisplay
        /// The item's cell left the screen (`didEndDisplaying`).
        case didEndDisplaying
    }

    /// The view's time, in seconds, of the frame in which the callback happened.
    public var time: Double
    /// The kind of callback.
    public var kind: Kind
    /// The item's index path as passed to the callback.
    public var indexPath: IndexPath

    /// Creates an event.
    public init(time: Double, kind: Kind, indexPath: IndexPath) {
        self.time = time
        self.kind = kind
        self.indexPath = indexPath
    }

    /// For example `0.016 prefetch [0, 12]`.
    public var description: String { "\(time) \(kind.rawValue) \(Array(indexPath))" }
}
