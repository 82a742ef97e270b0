import Foundation

/// The package's one audited lock: a value guarded by an `NSLock`.
///
/// Every shared mutable state in PrefetchKit lives in a `Locked`, and is reached only through
/// ``withLock(_:)``, which holds the lock for the closure's duration and never longer. Callers
/// must not perform side effects (resume continuations, call user callbacks, start tasks) inside
/// the closure: they return what to do and do it after the lock is released.
///
/// Audit: `@unchecked Sendable` is sound because `state` is only touched while `lock` is held,
/// and `State: Sendable` keeps non-sendable values from escaping through the closure's result.
/// `NSLock` rather than `Synchronization.Mutex`: on this toolchain ThreadSanitizer reports false
/// races on `Mutex` almost every run, and is clean with `NSLock`. Swap it here if that changes.
///
/// `withLock` is inlinable so that callers in other modules (``AsyncFetcher/fetchedData(for:)``)
/// are specialized for their state type instead of going through generic metadata look-ups.
@usableFromInline
package final class Locked<State: Sendable>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    /// Only touched inside `withLock`, which the lock serializes; dynamic exclusivity checks
    /// would only repeat that guarantee on every access.
    @exclusivity(unchecked) @usableFromInline var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
