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
