/// Where a prefetched value goes: the memory cache, ready to show, or the ``DataStore`` only.
///
/// A prefetch to ``store`` loads the value and writes it to the fetcher's data store without
/// putting it in the memory cache, so it costs bytes on the network and on disk but no memory.
/// Asking for it later (a visible request, ``AsyncFetcher/value(for:priority:quality:)``, or a prefetch to
/// ``memory``) reads it back from the store, which is quicker than the network: that is how a far
/// prefetch is promoted as it comes near. A ``PrefetchController`` chooses the destination of each
/// request itself under a memory budget (see the article "Budgets").
///
/// ```swift
/// fetcher.prefetch(window)                       // .memory: ready to show
/// fetcher.prefetch(left, destination: .store)    // far ahead: on disk, not decoded into memory
/// ```
///
/// A load goes to the store only while every interest in it is a store prefetch: a consumer or a
/// memory prefetch joining it sends its value to memory. A fetcher without a data store treats
/// ``store`` as ``memory``: the caller asked for the data ahead of need, and loading it only to
/// drop it would spend the network for nothing (its memory budget still bounds what it keeps).
public enum FetchDestination: Hashable, Sendable {
    /// The memory cache: ready to show (the default).
    case memory
    /// The data store only: written there, not kept in memory.
    case store
}

/// The destinations of a fetcher's prefetch interests, and what its ``DataStore`` is known to
/// hold (`FetcherStateMachine`).
@usableFromInline
struct DestinationBook<ID: Hashable & Sendable>: Sendable {
    /// Whether the fetcher has a data store; without one every destination is memory and the
    /// book stays empty.
    @usableFromInline let hasStore: Bool
    /// The ids whose prefetch interest goes to the store only.
    @usableFromInline var storeOnly: Set<ID> = []
    /// Loads cancelled or pre-empted while going to the store only: a late value of theirs
    /// stays out of memory too.
    @usableFromInline var retired: Set<FetchLoadID> = []
    /// The ids whose value this fetcher wrote to its store or read from it lately (at most
    /// ``knownLimit``, the first remembered forgotten first): a store prefetch of one of them has nothing
    /// to do. A hint only: a value the store lost since is loaded again when it is asked for.
    @usableFromInline var known: Set<ID> = []
    var knownRing: [ID] = []
    var knownNext = 0
    /// Loads that ended with their value in the store only.
    @usableFromInline var storeOnlyLoads = 0

    /// How many stored ids the book remembers: 4,096 unless a test says otherwise.
    let knownLimit: Int

    init(hasStore: Bool, knownLimit: Int = 4_096) {
        precondition(knownLimit >= 1, "DestinationBook: knownLimit must be at least 1, got \(knownLimit)")
        self.hasStore = hasStore
        self.knownLimit = knownLimit
    }

    /// Whether a request to `destination` goes to the store only (never without a store).
    @inlinable
    func isStoreOnly(_ destination: FetchDestination) -> Bool {
        hasStore && destination == .store
    }

    /// Remembers that the store holds `id`'s value.
    @usableFromInline
    mutating func noteStored(_ id: ID) {
        guard known.insert(id).inserted else { return }
        if knownRing.count < knownLimit {
            knownRing.append(id)
        } else {
            known.remove(knownRing[knownNext])
            knownRing[knownNext] = id
            knownNext = (knownNext + 1) % knownLimit
        }
    }

    /// Sets the destination of `id`'s prefetch interest.
    @usableFromInline
    mutating func set(_ id: ID, storeOnly: Bool) {
        if storeOnly { self.storeOnly.insert(id) } else { self.storeOnly.remove(id) }
    }
}
