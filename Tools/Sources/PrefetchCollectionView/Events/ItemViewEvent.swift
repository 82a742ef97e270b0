import Foundation

/// One callback a ``CollectionView`` or ``TableView`` made, with the view's time when it made it.
///
/// Set the view's `onEvent` or attach an `EventRecorder` to receive them.
package struct ItemViewEvent: Hashable, Sendable, CustomStringConvertible {
    /// The kind of callback.
    package enum Kind: String, Hashable, Sendable, CaseIterable {
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
    package var time: Double
    /// The kind of callback.
    package var kind: Kind
    /// The item's index path as passed to the callback.
    package var indexPath: IndexPath

    /// Creates an event.
    package init(time: Double, kind: Kind, indexPath: IndexPath) {
        self.time = time
        self.kind = kind
        self.indexPath = indexPath
    }

    /// For example `0.016 prefetch [0, 12]`.
    package var description: String { "\(time) \(kind.rawValue) \(Array(indexPath))" }
}

/// Keeps every callback of a view, in order, for tests, statistics and the simulator.
@MainActor
package final class EventRecorder {
    /// Every event so far, oldest first.
    package private(set) var events: [ItemViewEvent] = []

    /// Creates an empty recorder.
    package init() {}

    /// Starts recording `view`'s events, replacing its `onEvent` handler.
    ///
    /// The recorder calls the handler it replaced after recording each event.
    package func attach(to view: ItemScrollView) {
        let previous = view.onEvent
        view.onEvent = { [weak self] event in
            self?.record(event)
            previous?(event)
        }
    }

    /// Appends an event.
    package func record(_ event: ItemViewEvent) {
        events.append(event)
    }

    /// The events of one kind, oldest first.
    ///
    /// - Complexity: O(events).
    package func events(_ kind: ItemViewEvent.Kind) -> [ItemViewEvent] {
        events.filter { $0.kind == kind }
    }

    /// Forgets every event.
    package func removeAll() {
        events.removeAll()
    }
}
