import ArgumentParser
import PrefetchKit
import PrefetchSimulation

/// The conditions a run prefetches under: the network's (`--conditions`), the fetcher's memory
/// budget (`--memory-budget-mb`), the decoded size of each value (`--value-kb`) and when the
/// system runs short of memory (`--memory-pressure-at`).
struct BudgetOptions: ParsableArguments {
    /// The network's conditions, by name.
    enum Conditions: String, CaseIterable, ExpressibleByArgument {
        case normal, constrained, expensive

        var value: NetworkConditions {
            switch self {
            case .normal: NetworkConditions()
            case .constrained: NetworkConditions(isConstrained: true)
            case .expensive: NetworkConditions(isExpensive: true)
            }
        }
    }

    /// Where prefetched values may go.
    enum Destinations: String, CaseIterable, ExpressibleByArgument {
        /// No data store: every value to memory (what is beyond a memory budget is not prefetched).
        case memoryOnly = "memory-only"
        /// A data store: beyond a memory budget, to the store only, promoted to memory as it comes near.
        case store
    }

    @Option(name: .long, help: "The network's conditions: normal, constrained (Low Data Mode: only a fling's landing zone or the next screen) or expensive (at most 1.5 screens ahead).")
    var conditions: Conditions = .normal

    @Option(name: .customLong("prefetch-mb-per-minute"), help: ArgumentHelp(
        "The most prefetching in any minute, in MB (0 to 100000), each prefetch counted at a feed thumbnail's median 60 KB: NetworkConditions' byte budget; none by default.",
        valueName: "MB"))
    var prefetchMBPerMinute: Double?

    @Option(name: .customLong("memory-budget-mb"), help: "The most memory the fetcher's cache and loads in flight may hold, in MiB (1 to 65536); no limit by default.")
    var memoryBudgetMB: Int?

    @Option(name: .customLong("value-kb"), help: "The decoded size of each value, in KiB (0 to 1048576): its memory cost. 1024 (a 512 × 512 RGBA bitmap) by default.")
    var valueKB: Int = 1_024

    @Option(name: .customLong("memory-pressure-at"), help: ArgumentHelp(
        "Signal memory pressure at this many simulated seconds (repeatable): the view keeps only the screen and a fling's landing zone for a while, and the fetcher only their values.",
        valueName: "seconds"))
    var memoryPressureAt: [Double] = []

    @Option(name: .long, help: "Where prefetched values may go: memory-only (no data store) or store (a data store: under a memory budget what memory cannot hold is prefetched to the store and promoted to memory as it comes near). store with --memory-budget-mb, memory-only otherwise, by default.")
    var destinations: Destinations?

    @Option(name: .customLong("store-read-ms"), help: ArgumentHelp(
        "How long a read from the data store takes (flash read and decode of one value), in ms (1 to 10000). 20 by default: an assumption for a 1 MiB bitmap.",
        valueName: "ms"))
    var storeReadMS: Double = 20

    /// Whether the simulated fetcher has a data store.
    var usesStore: Bool { destinations.map { $0 == .store } ?? (memoryBudgetMB != nil) }

    func validate() throws {
        if let prefetchMBPerMinute, !(prefetchMBPerMinute.isFinite && (0...100_000).contains(prefetchMBPerMinute)) {
            throw ValidationError("--prefetch-mb-per-minute \(prefetchMBPerMinute) is out of range; use 0 to 100000 MB")
        }
        if let memoryBudgetMB, !(1...65_536).contains(memoryBudgetMB) {
            throw ValidationError("--memory-budget-mb \(memoryBudgetMB) is out of range; use 1 to 65536 MiB")
        }
        guard (0...1_048_576).contains(valueKB) else { throw ValidationError("--value-kb \(valueKB) is out of range; use 0 to 1048576 KiB") }
        for time in memoryPressureAt where !(time.isFinite && time >= 0) {
            throw ValidationError("--memory-pressure-at \(time) is out of range; use a finite number of seconds, at least 0")
        }
        guard storeReadMS.isFinite, (1...10_000).contains(storeReadMS) else {
            throw ValidationError("--store-read-ms \(storeReadMS) is out of range; use 1 to 10000 ms")
        }
    }

    func apply(to configuration: inout SimulationConfiguration) throws {
        try validate()
        configuration.conditions = conditions.value
        if let prefetchMBPerMinute {
            configuration.conditions.prefetchBudget = try PrefetchDataBudget(
                bytesPerMinute: Int((prefetchMBPerMinute * 1e6).rounded()), bytesPerLoad: Self.bytesPerPrefetch)
        }
        configuration.memoryBudgetBytes = memoryBudgetMB.map { $0 << 20 }
        configuration.valueBytes = valueKB << 10
        configuration.memoryPressureAt = memoryPressureAt
        configuration.storeReadSeconds = usesStore ? storeReadMS / 1_000 : nil
    }

    /// What one prefetch counts against `--prefetch-mb-per-minute`: the median of the shared link's
    /// standard payload sizes.
    static let bytesPerPrefetch = 60_000

    /// `, constrained, memory budget 64 MiB, values 1024 KiB, data store (reads 20.0 ms), memory pressure at 5.0 s`, or nothing
    /// under the defaults.
    var summary: String {
        var parts: [String] = []
        if conditions != .normal { parts.append(conditions.rawValue) }
        if let prefetchMBPerMinute { parts.append("prefetch at most \(prefetchMBPerMinute) MB a minute") }
        if let memoryBudgetMB { parts.append("memory budget \(memoryBudgetMB) MiB, values \(valueKB) KiB") }
        if usesStore { parts.append("data store (reads \(storeReadMS) ms)") }
        if !memoryPressureAt.isEmpty {
            parts.append("memory pressure at " + memoryPressureAt.map { "\($0) s" }.joined(separator: ", "))
        }
        return parts.map { ", " + $0 }.joined()
    }
}
