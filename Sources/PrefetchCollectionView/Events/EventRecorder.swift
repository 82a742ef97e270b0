import Foundation

/// Keeps every callback of a view, in order, for tests, statistics and the simulator.
///
/// ```swift
/// let recorder = EventRecorder()
/// recorder.attach(to: collectionView)
/// collectionView.step(to: 0)
/// print(recorder.events(.prefetch).map(\.indexPath))
/// ```
@MainActor
public final class EventRecorder {
    /// Every event so far, oldest first.
    public private(set) var events: [ItemViewEvent] = []

    /// Creates an empty recorder.
    public init() {}

    /// Starts recording `view`'s events, replacing its ``ItemScrollView/onEvent`` handler.
    ///
    /// The recorder calls the handler it replaced after recording each event.
    public func attach(to view: ItemScrollView) {
        let previous = view.onEvent
        view.onEvent = { [weak self] event in
            self?.record(event)
            previous?(event)
        }
    }

    /// Appends an event.
    public func record(_ event: ItemViewEvent) {
        events.append(event)
    }

    /// The events of one kind, oldest first.
    ///
    /// - Complexity: O(events).
    public func events(_ kind: ItemViewEvent.Kind) -> [ItemViewEvent] {
        events.filter { $0.kind == kind }
    }

    /// How many events of each kind were recorded.
    ///
    /// - Complexity: O(events).
    public var counts: [ItemViewEvent.Kind: Int] {
        events.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    /// Forgets every event.
    public func removeAll() {
        events.removeAll()
    }
}
