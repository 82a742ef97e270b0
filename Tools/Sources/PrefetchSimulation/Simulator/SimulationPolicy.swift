import PrefetchKit
import PrefetchToolSupport
import PrefetchTesting

/// A policy the simulator can run: any `PrefetchPolicy`, or the clairvoyant reference.
public enum SimulationPolicy: Sendable, CustomStringConvertible {
    /// A real policy, driving the collection view's prefetch callbacks.
    case policy(any PrefetchPolicy)
    /// The reference: knows the whole trace and every load's latency, and loads
    /// earliest-deadline-first under the same concurrency cap. No real policy can know as much.
    case clairvoyant
    /// The same reference seeing only the next `seconds` of the trace at each moment
    /// (`clairvoyant-1s` for one second): a yardstick for causal predictors.
    case shortSightedClairvoyant(seconds: Double)

    /// The policy's name.
    public var name: String {
        switch self {
        case .policy(let p): p.name
        case .clairvoyant: "clairvoyant"
        case .shortSightedClairvoyant(let seconds):
            "clairvoyant-\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))s"
        }
    }

    /// The one-second reference, `clairvoyant-1s`.
    package static let clairvoyant1s = SimulationPolicy.shortSightedClairvoyant(seconds: 1)

    /// How far ahead a reference sees: nil for a real policy, infinity for the full clairvoyant.
    var lookahead: Double? {
        switch self {
        case .policy: nil
        case .clairvoyant: .infinity
        case .shortSightedClairvoyant(let seconds): seconds
        }
    }

    /// The name.
    public var description: String { name }

    /// The policies the suite compares: the registry's (`PrefetchPolicies.all`: none, uikitLike,
    /// textureLike, adaptive), then the references clairvoyant and clairvoyant-1s.
    public static let standard: [SimulationPolicy] = PrefetchPolicies.all.map { .policy($0) } + [.clairvoyant, clairvoyant1s]

    /// The policy with this name: a name of the registry, `clairvoyant`, `clairvoyant-1s`, or a
    /// peer's (``peers``).
    /// - Throws: ``SimulationError`` naming the unknown name and the known ones.
    public static func named(_ name: String) throws -> SimulationPolicy {
        guard let policy = (standard + peers).first(where: { $0.name == name }) else {
            throw SimulationError(
                "unknown policy '\(name)'; expected one of \(standard.map(\.name).joined(separator: ", ")), or a peer: \(peers.map(\.name).joined(separator: ", "))")
        }
        return policy
    }
}

/// The settings of a simulation run.
public struct SimulationConfiguration: Sendable {
    /// How long loads take and how often they fail: on a shared link, each request's round trip.
    public var latency = LatencyProfile.lte.model
    /// How loads share the network: by default one link of the lte profile's capacity, with
    /// feed-thumbnail payload sizes. Set it with `latency` when you change the profile.
    public var network = NetworkModel.shared(SharedLink(.lte))
    /// The most loads at once (as `FetcherConfiguration/maxConcurrentLoads`).
    public var maxConcurrentLoads = 6
    /// Seeds every random draw: the same seed gives the same numbers.
    public var seed: UInt64 = 1
    /// Frames per second.
    public var frameRate: Double = 60
    /// Retries of failed loads, as in `AsyncFetcher`.
    public var retry: RetryPolicy = .standard
    /// The memory cache's count limit.
    public var cacheCountLimit = 1_000
    /// Seconds simulated after the motion ends, so loads for visible cells can finish.
    public var tail: Double = 1
    /// The longest a run may last, in simulated seconds.
    public var maxDuration: Double = 600
    /// Whether the app knows each item's payload size (as a feed that lists its photos' byte
    /// counts does) and gives it to its prefetch data source, so the view plans each item with
    /// its own load time once the fetcher has measured the transfer rate. On by default.
    public var knowsPayloadSizes = true

    // MARK: Budgets (issue #27): the network's conditions and the memory budget

    /// The network's conditions the view's controller prefetches under: `.normal` (the default),
    /// `.constrained` (Low Data Mode) or `.expensive`, with a byte budget if they carry one.
    public var conditions = NetworkConditions()
    /// The most memory the fetcher's cache and its loads in flight may hold, in bytes
    /// (`FetcherConfiguration.memoryBudget`); `nil` (the default) for no limit.
    public var memoryBudgetBytes: Int?
    /// The decoded size of each value, in bytes: its memory cost. 1 MiB by default, a 512 × 512
    /// RGBA bitmap.
    public var valueBytes = 1 << 20
    /// When the system runs short of memory, in simulated seconds: the view's
    /// `handleMemoryPressure()` is called on the first frame at or after each time, after the
    /// frame's layout pass (several times in one frame make one signal). None by default.
    public var memoryPressureAt: [Double] = []
    /// The read latency of the fetcher's data store (a disk cache), in seconds, or `nil` (the
    /// default) for no store. With a store every loaded value is written to it, a value no longer
    /// in memory is read back from it in this time, without the network, and under a memory budget
    /// the view prefetches what its memory cannot hold to the store only (`FetchDestination.store`)
    /// and promotes it to memory as it comes near. `prefetch-bench` uses 0.02 s under a memory
    /// budget (`--store-read-ms 20`): an assumption, not a measurement, of about 1 ms to read a
    /// thumbnail's bytes from flash and 10–20 ms to decode them into a 512 × 512 bitmap on a phone.
    public var storeReadSeconds: Double?
    /// Where items' previews come from; ``PreviewSource/none`` (the default) loads full values
    /// only, as before previews. With previews the app's cells show a preview first and its
    /// controller allots bytes by ``previewPlan``.
    public var previews = PreviewSource.none
    /// How the app's controller allots bytes between previews and full values (with previews).
    public var previewPlan = PreviewPlan.standard
    /// Slots beyond ``maxConcurrentLoads`` that only previews take (as
    /// `FetcherConfiguration/previewSlots`, whose default it has). Used only with previews.
    public var previewSlots = FetcherConfiguration().previewSlots
    /// The app binding that drives the prefetching: UIKit's ``Toolkit/uikit`` (the default) or
    /// a SwiftUI list's ``Toolkit/swiftui``, on the same view, gestures and network.
    public var toolkit = Toolkit.uikit

    /// Creates a configuration with the defaults: mobile latency, cap 6, seed 1, 60 fps.
    public init() {}

    /// Throws when a value is out of range, naming it and the rule.
    func validate() throws {
        guard maxConcurrentLoads >= 1 else {
            throw SimulationError("concurrency cap is \(maxConcurrentLoads), but it must be at least 1")
        }
        guard frameRate.isFinite, frameRate >= 1, frameRate <= 1_000 else {
            throw SimulationError("frame rate is \(frameRate), but it must be between 1 and 1000 frames per second")
        }
        guard cacheCountLimit >= 1 else { throw SimulationError("cache count limit is \(cacheCountLimit), but it must be at least 1") }
        guard tail.isFinite, tail >= 0 else { throw SimulationError("tail is \(tail) s, but it must be a finite number, at least 0") }
        guard maxDuration.isFinite, maxDuration > 0 else { throw SimulationError("maxDuration is \(maxDuration) s, but it must be greater than 0") }
        if case .shared(let link) = network { try link.sizes.validate(); try link.phone.validate() }
        try previews.validate()
        guard previewSlots >= 0 else { throw SimulationError("preview slots are \(previewSlots), but they must be 0 or more") }
        if let memoryBudgetBytes, memoryBudgetBytes < 0 {
            throw SimulationError("memory budget is \(memoryBudgetBytes) bytes, but it must be 0 or more")
        }
        guard valueBytes >= 0 else { throw SimulationError("value size is \(valueBytes) bytes, but it must be 0 or more") }
        for time in memoryPressureAt where !(time.isFinite && time >= 0) {
            throw SimulationError("memory-pressure time is \(time) s, but it must be a finite number of seconds, at least 0")
        }
        // A read must take time: at 0 a clairvoyant reference, which ignores the memory budget,
        // could read back what the budget evicts again and again at one instant.
        if let storeReadSeconds, !(storeReadSeconds.isFinite && storeReadSeconds >= 0.001 && storeReadSeconds <= 10) {
            throw SimulationError("store read latency is \(storeReadSeconds) s, but it must be from 0.001 to 10 seconds")
        }
        do { try retry.validate() } catch let error as PrefetchError { throw SimulationError(error.message) }
        try VirtualTimeLoop<Int, Int>.validate(retry)
    }
}
