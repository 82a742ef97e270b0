/// Loads the value for one identifier: the slow work (a network request, a decode) that
/// an ``AsyncFetcher`` schedules, coalesces and cancels.
///
/// A loader should honour task cancellation promptly. One that does not still cannot hold
/// a slot of the fetcher: the fetcher frees the slot as soon as the last interest leaves.
///
/// To let the fetcher retry a failure, throw an error that conforms to ``RetryableError``.
public protocol DataLoader<ID, Value>: Sendable {
    /// The identifier type.
    associatedtype ID: Hashable & Sendable
    /// The loaded value type.
    associatedtype Value: Sendable

    /// Loads the value for `id`.
    func load(_ id: ID) async throws -> Value
}

/// A ``DataLoader`` made from a closure: what `AsyncFetcher(load:)` wraps its closure in.
package struct ClosureLoader<ID: Hashable & Sendable, Value: Sendable>: DataLoader {
    private let body: @Sendable (ID) async throws -> Value

    /// Creates a loader that calls `body` for each load.
    package init(_ body: @escaping @Sendable (ID) async throws -> Value) {
        self.body = body
    }

    /// Calls the closure.
    package func load(_ id: ID) async throws -> Value {
        try await body(id)
    }
}

/// An error that tells the fetcher's ``RetryPolicy`` whether trying again may succeed.
///
/// Server errors, timeouts and dropped connections are usually retryable; a missing
/// resource or a malformed request is not.
public protocol RetryableError: Error {
    /// Whether another attempt may succeed.
    var isRetryable: Bool { get }
}

/// A loader that can bring a preview of an item before, or instead of, its full value.
///
/// Two kinds of preview fit: a prefix of the resource itself (the first scan of a progressive
/// JPEG), which the full load later completes without fetching a byte twice, and a separate
/// small representation (a thumbnail URL, a placeholder the item's model already carries).
/// ``AsyncFetcher`` calls ``load(_:quality:preview:)`` with the highest quality any interest of
/// the load asks for, and ``DataLoader/load(_:)`` calls it for the full value.
///
/// ```swift
/// struct Photos: PreviewLoader {
///     func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable ([UInt8]) -> Void) async throws -> [UInt8] {
///         let head = [UInt8](repeating: 1, count: 9_000)     // the first scan's bytes
///         if quality == .preview { return head }             // keep them for the full load
///         preview(head)                                      // a cell can show it already
///         return head + [UInt8](repeating: 2, count: 51_000) // the rest, by a range request
///     }
/// }
/// ```
public protocol PreviewLoader<ID, Value>: DataLoader {
    /// The identifier type (restated so that a conformance infers it from ``load(_:quality:preview:)``).
    associatedtype ID
    /// The loaded value type (restated for the same reason).
    associatedtype Value

    /// Loads `id` up to `quality`.
    ///
    /// For ``FetchQuality/preview`` it returns the preview. For ``FetchQuality/full`` it may call
    /// `preview` once, as soon as a preview exists (a progressive prefix has arrived), and then
    /// returns the full value. A loader whose preview is a prefix should keep the prefix a
    /// preview load fetched, so that the full load moves only the rest.
    func load(_ id: ID, quality: FetchQuality, preview: @escaping @Sendable (Value) -> Void) async throws -> Value
}

extension PreviewLoader {
    /// The full value: ``load(_:quality:preview:)`` at ``FetchQuality/full``, its preview ignored.
    public func load(_ id: ID) async throws -> Value {
        try await load(id, quality: .full, preview: { _ in })
    }
}
