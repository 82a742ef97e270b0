#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
import Foundation  // NSLock, where there is no pthread
#endif

/// The package's one audited lock: a value guarded by a mutex.
///
/// Every shared mutable state in the package lives in a `Locked`, and is reached only through
/// ``withLock(_:)``, which holds the lock for the closure's duration and never longer. Callers
/// must not perform side effects (resume continuations, call user callbacks, start tasks) inside
/// the closure: they return what to do and do it after the lock is released.
///
/// Audit: `@unchecked Sendable` is sound because `state` is only touched while the mutex is held,
/// and `State: Sendable` keeps non-sendable values from escaping through the closure's result.
/// A plain `pthread_mutex_t` (an `NSLock` where there is no pthread) rather than
/// `Synchronization.Mutex`: on this toolchain ThreadSanitizer reports false races on `Mutex` almost
/// every run and is clean with pthread mutexes, which it understands natively; and corelibs'
/// `NSLock` adds a layer of indirection on the fetcher's hottest path. Swap it here if that changes.
///
/// `withLock` is inlinable so that callers in other modules (`AsyncFetcher.fetchedData(for:)`)
/// are specialized for their state type instead of going through generic metadata look-ups.
@usableFromInline
package final class Locked<State: Sendable>: @unchecked Sendable {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
    @usableFromInline let lock = NSLock()
    #endif
    /// Only touched inside `withLock`, which the lock serializes; dynamic exclusivity checks
    /// would only repeat that guarantee on every access.
    @exclusivity(unchecked) @usableFromInline var state: State

    package init(_ state: State) {
        self.state = state
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with \(status)")
        #endif
    }

    deinit {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        #endif
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #else
        lock.lock()
        defer { lock.unlock() }
        #endif
        return try body(&state)
    }
}
