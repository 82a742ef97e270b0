@testable import PrefetchKit

/// Where prefetched values go, written out plainly for `FetcherStateMachinePropertyTests`: the
/// documented rules of `FetchDestination` over sets, independent of `DestinationBook`.
struct DestinationModel {
    /// Whether the fetcher has a store; without one every destination is memory.
    let hasStore: Bool
    /// The ids whose prefetch interest goes to the store only.
    var storeOnly: Set<Int> = []
    /// Loads cancelled or pre-empted while their id went to the store only.
    var retired: Set<FetchLoadID> = []
    /// The ids the fetcher remembers the store holds (written after a load, or read from it), at
    /// most `knownLimit`, first remembered first forgotten.
    var known: [Int] = []
    var knownLimit: Int
    /// Loads that ended, delivered, with their value in the store only.
    var storeOnlyLoads = 0

    /// Whether a request to `destination` goes to the store only.
    func isStoreOnly(_ destination: FetchDestination) -> Bool { hasStore && destination == .store }

    /// Whether a request for `id` to `destination` has nothing to do: the store holds it already.
    func isStored(_ id: Int, _ destination: FetchDestination) -> Bool { isStoreOnly(destination) && known.contains(id) }

    /// A load of `id` was cancelled or pre-empted.
    mutating func retire(_ id: Int, _ load: FetchLoadID) {
        if storeOnly.contains(id) { retired.insert(load) }
    }

    /// Sets the destination of `id`'s prefetch interest.
    mutating func set(_ id: Int, _ destination: FetchDestination) {
        guard hasStore else { return }
        if destination == .store { storeOnly.insert(id) } else { storeOnly.remove(id) }
    }

    /// A load of `id` ended; `retiredLoad` is its load if it was cancelled meanwhile, and
    /// `consumers` how many consumers it delivers to otherwise. Returns whether its value stays out of memory.
    mutating func finished(_ id: Int, retiredLoad: FetchLoadID?, consumers: Int, succeeded: Bool) -> Bool {
        let storeOnlyValue: Bool
        if let retiredLoad {
            storeOnlyValue = retired.remove(retiredLoad) != nil
        } else {
            storeOnlyValue = storeOnly.remove(id) != nil && consumers == 0
            if storeOnlyValue, succeeded { storeOnlyLoads += 1 }
        }
        if succeeded, hasStore, !known.contains(id) {
            known.append(id)
            if known.count > knownLimit { known.removeFirst() }
        }
        return storeOnlyValue
    }

    /// The differences from the machine's book.
    func differences(from book: DestinationBook<Int>) -> [String] {
        var problems: [String] = []
        if book.storeOnly != storeOnly { problems.append("store-only ids \(book.storeOnly.sorted()), model \(storeOnly.sorted())") }
        if book.retired != retired { problems.append("retired store-only loads \(book.retired), model \(retired)") }
        if book.known != Set(known) { problems.append("stored ids \(book.known.sorted()), model \(known)") }
        if book.storeOnlyLoads != storeOnlyLoads { problems.append("store-only loads \(book.storeOnlyLoads), model \(storeOnlyLoads)") }
        return problems
    }
}
