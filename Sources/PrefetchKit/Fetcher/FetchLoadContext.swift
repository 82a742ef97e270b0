/// What a loader can know about the load it runs, and what it can tell: ``AsyncFetcher`` sets it
/// around each call of its loader (and of its data store), as task-local values.
///
/// A loader that talks to the network can mark prefetches so that the system may refuse them on
/// a constrained network (Low Data Mode), while a visible cell's load goes through;
/// `PrefetchHTTP`'s `HTTPLoader` does so:
///
/// ```swift
/// struct ThumbnailLoader: DataLoader {
///     func load(_ id: Int) async throws -> String {
///         // On Apple platforms: request.allowsConstrainedNetworkAccess = !FetchLoadContext.isPrefetch
///         FetchLoadContext.isPrefetch ? "prefetched \(id)" : "wanted \(id)"
///     }
/// }
/// ```
public enum FetchLoadContext {
    /// The task-local value behind ``priority``. A constant `TaskLocal` rather than the
    /// `@TaskLocal static var` wrapper: the wrapper's storage counts as shared mutable state
    /// under strict concurrency with Apple's iOS 17 SDK.
    @usableFromInline static let current = TaskLocal<FetchPriority?>(wrappedValue: nil)

    /// The priority of the load being run when it started (the highest of its interests), or
    /// `nil` outside a fetcher's load.
    public static var priority: FetchPriority? { current.get() }

    /// A function that answers the priority of the load being run at the moment it is called,
    /// from any thread (a `URLSession` delegate's queue, say), or `nil` outside a fetcher's load.
    ///
    /// ``priority`` is the priority the load started at; this one follows it while the load
    /// runs: a prefetch whose cell comes on screen turns ``FetchPriority/Level/visible`` when a
    /// consumer joins, and a row a fling flew past sinks. Once a preview of the item is in (a
    /// ``PreviewLoader``'s), the rest of its load answers ``FetchPriority/Level/speculative``: a cell
    /// that shows something can wait for its last bytes behind cells that show nothing. The
    /// function answers `nil` once nothing holds the load any more. `HTTPLoader` reads it as data arrives and moves its
    /// `URLSessionTask.priority` with it.
    ///
    /// ```swift
    /// struct TileLoader: DataLoader {
    ///     func load(_ id: Int) async throws -> String {
    ///         let priorityNow = FetchLoadContext.livePriority       // read it inside the load...
    ///         return "tile \(id), urgency \(priorityNow?()?.urgency ?? 3)"   // ...call it anywhere
    ///     }
    /// }
    /// ```
    public static var livePriority: (@Sendable () -> FetchPriority?)? { meter.get()?.priorityNow }

    /// Reads, at any moment of the load being run, the quality its interests want now:
    /// ``FetchQuality/full`` once anything wants the full value, though the load was started for a
    /// preview (a cell came on screen while its preview was on the way); `nil` once nothing wants
    /// it, and outside a fetcher's load. A ``PreviewLoader`` asked for a preview may read it before
    /// it stops at the preview: when the full value is wanted by then, it may go on to it, return
    /// it and call ``recordFullQuality()``, which saves the second request of an upgrade.
    public static var liveQuality: (@Sendable () -> FetchQuality?)? { meter.get()?.qualityNow }

    /// The task-local meter behind ``recordTransferred(bytes:)``, ``recordFullQuality()``,
    /// ``livePriority`` and ``liveQuality``: one per load.
    @usableFromInline static let meter = TaskLocal<TransferMeter?>(wrappedValue: nil)

    /// Tells the fetcher that the load being run moved `bytes` over the network (call it once
    /// with the body's size, or as chunks arrive; the counts add up). The fetcher learns from
    /// these how fast transfers go (``FetchStatistics/transferBytesPerSecond``) and, with the
    /// sizes a prefetch target knows, how much longer a large item's load takes than a small
    /// one's. `PrefetchHTTP`'s `HTTPLoader` reports its bodies. Outside a fetcher's load, or for
    /// a negative count, it does nothing.
    ///
    /// ```swift
    /// struct PhotoLoader: DataLoader {
    ///     func load(_ id: Int) async throws -> [UInt8] {
    ///         let body = [UInt8](repeating: 0, count: 60_000)      // the response's body
    ///         FetchLoadContext.recordTransferred(bytes: body.count)
    ///         return body
    ///     }
    /// }
    /// ```
    public static func recordTransferred(bytes: Int) {
        guard bytes > 0 else { return }
        meter.get()?.add(bytes)
    }

    /// Tells the fetcher that the preview load being run returns the item's full value: the
    /// loader had it at hand (its own disk cache, a resource too small to have a preview). The
    /// fetcher then keeps the value at ``FetchQuality/full`` and answers those waiting for the
    /// full value with it too, with no second load. In a full load, or outside a fetcher's load,
    /// it does nothing.
    ///
    /// ```swift
    /// struct CachedPhotoLoader: PreviewLoader {
    ///     let onDisk: [Int: [UInt8]]
    ///     func load(_ id: Int, quality: FetchQuality, preview: @escaping @Sendable ([UInt8]) -> Void) async throws -> [UInt8] {
    ///         if let whole = onDisk[id] {
    ///             FetchLoadContext.recordFullQuality()      // a preview was asked for; this is all of it
    ///             return whole
    ///         }
    ///         return [UInt8](repeating: 0, count: quality == .preview ? 6_000 : 60_000)
    ///     }
    /// }
    /// ```
    public static func recordFullQuality() {
        meter.get()?.markFull()
    }

    /// Whether the load being run is a prefetch: nothing wanted it at ``FetchPriority/Level/visible``
    /// when it started. `false` outside a fetcher's load.
    public static var isPrefetch: Bool {
        guard let priority else { return false }
        return priority.level < .visible
    }
}

/// The bytes one load reported through ``FetchLoadContext/recordTransferred(bytes:)``, whether it
/// returned the full value (``FetchLoadContext/recordFullQuality()``), and the reader of its
/// priority (``FetchLoadContext/livePriority``): one object, one task-local value per load.
@usableFromInline
final class TransferMeter: Sendable {
    private let bytes = Locked(0)
    private let full = Locked(false)
    /// Reads the load's priority now.
    let priorityNow: (@Sendable () -> FetchPriority?)?
    /// Reads the quality the load's interests want now.
    let qualityNow: (@Sendable () -> FetchQuality?)?

    @usableFromInline init(priorityNow: (@Sendable () -> FetchPriority?)? = nil, qualityNow: (@Sendable () -> FetchQuality?)? = nil) {
        self.priorityNow = priorityNow
        self.qualityNow = qualityNow
    }

    func add(_ count: Int) {
        bytes.withLock { total in
            let (sum, overflow) = total.addingReportingOverflow(count)
            total = overflow ? Int.max : sum
        }
    }

    /// The bytes reported so far.
    @usableFromInline var total: Int { bytes.withLock { $0 } }

    /// The loader said its value is the full one (``FetchLoadContext/recordFullQuality()``).
    func markFull() { full.withLock { $0 = true } }

    /// Whether the loader said its value is the full one.
    @usableFromInline var returnedFull: Bool { full.withLock { $0 } }
}
