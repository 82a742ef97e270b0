import Foundation

/// A baseline fetcher built the way the `AsyncFetcher` of Apple's prefetching sample is built
/// ("Prefetching collection view data"), so PrefetchKit's `AsyncFetcher` has
/// something to be measured against. It is benchmark code, not library code.
///
/// The shape, as in the sample:
/// - `serialAccessQueue`, an `OperationQueue` limited to one operation, used as the lock: every
///   touch of `completionHandlers` and every fetch decision runs as an operation on it;
/// - `fetchQueue`, an `OperationQueue` that runs one `FetchOperation` per id;
/// - `completionHandlers`, a dictionary of completion-handler arrays per id;
/// - `cache`, an `NSCache`, read directly (it is thread-safe) by ``fetchedData(for:)``;
/// - finding an id's operation by scanning `fetchQueue.operations`, as the sample does;
/// - ``cancelFetch(_:)`` suspends the fetch queue, cancels the operation and drops the id's
///   handlers (they are never called: the sample's behaviour).
///
/// Two deliberate differences, both to run the same workload as PrefetchKit's fetcher:
/// - the fetch queue is capped (default 6, PrefetchKit's default `maxConcurrentLoads`) instead
///   of the system default, so loads that wait for a long time do not each hold a thread;
/// - the loader is injected, and can wait until its operation is cancelled.
///
/// Audit: `@unchecked Sendable` mirrors the seed, whose thread safety comes from the serial
/// operation queue, not from the type system: `completionHandlers` is touched only by
/// operations on `serialAccessQueue`; `cache` and the queues are thread-safe Foundation types.
public final class SeedStyleFetcher<ID: Hashable & Sendable, Value: AnyObject & Sendable>: @unchecked Sendable {
    /// A loader: runs synchronously on a fetch-queue thread, as the sample's operation does.
    /// Returns `nil` when it gives up (for example when `context` says it was cancelled).
    public typealias Load = @Sendable (ID, LoadContext) -> Value?

    /// The completion of ``fetchAsync(_:completion:)``: called on the serial access queue.
    public typealias Completion = @Sendable (Value?) -> Void

    private let serialAccessQueue = OperationQueue()
    private let fetchQueue = OperationQueue()
    private var completionHandlers: [ID: [Completion]] = [:]
    private let cache = NSCache<CacheKey<ID>, Value>()
    private let load: Load

    /// Creates a fetcher that runs at most `maxConcurrentFetches` loads at once.
    public init(maxConcurrentFetches: Int = 6, load: @escaping Load) {
        serialAccessQueue.maxConcurrentOperationCount = 1
        fetchQueue.maxConcurrentOperationCount = maxConcurrentFetches
        self.load = load
    }

    /// Asks for the data of `id`; `completion`, if any, is called when it is there.
    ///
    /// Returns at once: the work runs later, as an operation on the serial access queue.
    public func fetchAsync(_ id: ID, completion: Completion? = nil) {
        serialAccessQueue.addOperation {
            if let completion {
                self.completionHandlers[id, default: []].append(completion)
            }
            self.fetchData(for: id)
        }
    }

    /// The cached data for `id`, if any.
    public func fetchedData(for id: ID) -> Value? {
        cache.object(forKey: CacheKey(id))
    }

    /// Cancels the fetch of `id` and forgets its completion handlers.
    public func cancelFetch(_ id: ID) {
        serialAccessQueue.addOperation {
            self.fetchQueue.isSuspended = true
            defer { self.fetchQueue.isSuspended = false }
            self.operation(for: id)?.cancel()
            self.completionHandlers[id] = nil
        }
    }

    /// Blocks until the serial access queue has run every operation added so far.
    public func waitUntilIdle() {
        serialAccessQueue.waitUntilAllOperationsAreFinished()
    }

    /// Blocks until every fetch operation has ended, then until the serial queue is idle.
    public func waitUntilFetchesEnd() {
        fetchQueue.waitUntilAllOperationsAreFinished()
        serialAccessQueue.waitUntilAllOperationsAreFinished()
    }

    // MARK: On the serial access queue

    private func fetchData(for id: ID) {
        guard operation(for: id) == nil else { return }
        if let data = fetchedData(for: id) {
            invokeCompletionHandlers(for: id, with: data)
            return
        }
        let operation = FetchOperation(id: id, load: load)
        operation.completionBlock = { [weak operation] in
            guard let data = operation?.fetchedData else { return }
            self.cache.setObject(data, forKey: CacheKey(id))
            self.serialAccessQueue.addOperation {
                self.invokeCompletionHandlers(for: id, with: data)
            }
        }
        fetchQueue.addOperation(operation)
    }

    private func operation(for id: ID) -> FetchOperation? {
        for case let operation as FetchOperation in fetchQueue.operations
        where !operation.isCancelled && operation.id == id {
            return operation
        }
        return nil
    }

    private func invokeCompletionHandlers(for id: ID, with data: Value) {
        let handlers = completionHandlers.removeValue(forKey: id) ?? []
        for handler in handlers { handler(data) }
    }

    // MARK: Types

    /// One load, run synchronously on a fetch-queue thread.
    private final class FetchOperation: Operation, @unchecked Sendable {
        let id: ID
        private let load: Load
        private let context = LoadContext()
        private(set) var fetchedData: Value?

        init(id: ID, load: @escaping Load) {
            self.id = id
            self.load = load
        }

        override func main() {
            guard !isCancelled else { return }
            fetchedData = load(id, context)
        }

        override func cancel() {
            super.cancel()
            context.cancel()
        }
    }
}

/// What a ``SeedStyleFetcher`` loader can ask about its operation.
///
/// Audit: `@unchecked Sendable` because `cancelled` is only touched under `lock`.
public final class LoadContext: @unchecked Sendable {
    private let lock = NSCondition()
    private var cancelled = false

    init() {}

    /// Whether the operation was cancelled.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// Blocks the calling thread until the operation is cancelled.
    public func waitUntilCancelled() {
        lock.lock()
        while !cancelled { lock.wait() }
        lock.unlock()
    }

    func cancel() {
        lock.lock()
        cancelled = true
        lock.broadcast()
        lock.unlock()
    }
}

/// The `NSCache` key for an id: the sample bridges its `UUID` to `NSUUID` on every access; a
/// generic id needs an `NSObject` box with value equality instead.
final class CacheKey<ID: Hashable & Sendable>: NSObject, @unchecked Sendable {
    let id: ID

    init(_ id: ID) { self.id = id }

    override var hash: Int { id.hashValue }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? CacheKey<ID>)?.id == id
    }
}
