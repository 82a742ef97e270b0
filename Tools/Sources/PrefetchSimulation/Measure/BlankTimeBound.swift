import Foundation
import PrefetchKit
import PrefetchToolSupport

/// A lower bound on the blank cell-seconds of any policy on a shared link and a scroll: the limit
/// beside the clairvoyant reference (see <doc:Metrics>, "The lower bound on blank time").
///
/// The scroll does not depend on the policy, so when each counted cell is on screen is known
/// (``Exposure``, recorded once per scenario by ``Simulator/exposures(of:configuration:)``). The
/// bound relaxes everything a policy cannot control in its favour: every request starts at time
/// 0, round trips overlap freely and take the smallest time the latency model can draw, the
/// link's whole capacity moves bytes from then on, nothing fails and nothing once loaded is
/// evicted. It is the larger of two bounds on that relaxed problem, each proved in the article:
/// at each instant, the items ready by then fit the bytes the link could have moved
/// (``Result/pointwise``); and each item is ready no sooner than its own bytes allow
/// (``Result/perItem``).
///
/// ```swift
/// import PrefetchSimulation
///
/// let exposures = [BlankTimeBound.Exposure(item: 0, start: 0.1, end: 2), BlankTimeBound.Exposure(item: 1, start: 0.1, end: 2)]
/// let link = try BlankTimeBound.Link(capacityBytesPerSecond: 125_000, minimumRoundTrip: 0.05)
/// let bound = BlankTimeBound.compute(exposures: exposures, bytesToShow: { _ in 60_000 }, link: link)
/// print(bound.seconds)   // no schedule leaves these cells blank for less
/// ```
public enum BlankTimeBound {
    /// A counted appearance: `item`'s cell on screen from `start` to `end` (seconds), as the
    /// ``ReadinessMeter`` counts it (the first screen is not counted).
    public struct Exposure: Sendable, Hashable, Codable {
        /// The item shown.
        public var item: Int
        /// When its cell appeared, in seconds.
        public var start: Double
        /// When it left the screen (or the run ended), in seconds.
        public var end: Double

        /// `item` on screen from `start` to `end`.
        public init(item: Int, start: Double, end: Double) {
            (self.item, self.start, self.end) = (item, start, end)
        }
    }

    /// The relaxed link: its capacity, and the smallest round trip before a request's bytes move.
    public struct Link: Sendable, Hashable {
        /// Bytes per second.
        public let capacityBytesPerSecond: Double
        /// Seconds: no byte moves before then.
        public let minimumRoundTrip: Double

        /// A link of `capacityBytesPerSecond` whose first bytes move `minimumRoundTrip` seconds after time 0.
        /// - Throws: ``SimulationError`` when the capacity is not finite and above 0, or the round trip not finite and at least 0.
        public init(capacityBytesPerSecond: Double, minimumRoundTrip: Double) throws {
            guard capacityBytesPerSecond.isFinite, capacityBytesPerSecond > 0 else {
                throw SimulationError("bound link capacity is \(capacityBytesPerSecond) bytes/s, but it must be a finite number above 0")
            }
            guard minimumRoundTrip.isFinite, minimumRoundTrip >= 0 else {
                throw SimulationError("bound minimum round trip is \(minimumRoundTrip) s, but it must be a finite number, at least 0")
            }
            (self.capacityBytesPerSecond, self.minimumRoundTrip) = (capacityBytesPerSecond, minimumRoundTrip)
        }

        /// The relaxed link of a shared link under `latency`: its capacity, and the smallest round
        /// trip the latency model can draw (a fixed latency; a bandwidth model's base; 0 for a
        /// log-normal, whose draws come as close to 0 as you like). Nil when independent: there is no link.
        public init?(_ network: NetworkModel, latency: LatencyModel) {
            guard case .shared(let link) = network else { return nil }
            let floor: Duration = switch latency.distribution {
            case .fixed(let fixed): fixed
            case .bandwidth(let base, _): base   // a shared link draws round trips for 0 payload bytes
            case .logNormal: .zero
            }
            try? self.init(capacityBytesPerSecond: link.capacityBytesPerSecond, minimumRoundTrip: LatencyModel.seconds(floor))
        }
    }

    /// A bound and its parts, in cell-seconds.
    public struct Result: Sendable, Hashable, Codable {
        /// The scenario's name (empty when computed directly).
        public var scenario = ""
        /// The bound: no policy leaves less blank time. The larger of ``pointwise`` and ``perItem``.
        public var seconds = 0.0
        /// At each instant, the items ready by then fit the bytes the link could have moved.
        public var pointwise = 0.0
        /// Each item is ready no sooner than its own bytes allow.
        public var perItem = 0.0
        /// The blank time if nothing ever loaded: every counted cell's time on screen.
        public var exposed = 0.0
        /// Counted appearances.
        public var appearances = 0

        /// An empty result for `scenario`.
        public init(scenario: String = "") { self.scenario = scenario }
    }

    /// The bound for cells on screen as `exposures` say, where item `i` shows something once
    /// `bytesToShow(i)` of its bytes moved (its payload; with previews, its preview's bytes), on `link`.
    public static func compute(exposures: [Exposure], bytesToShow: (Int) -> Int, link: Link) -> Result {
        var result = Result()
        result.appearances = exposures.count
        let shown = exposures.filter { $0.end > $0.start }
        result.exposed = shown.reduce(0) { $0 + ($1.end - $1.start) }
        let capacity = link.capacityBytesPerSecond, r = link.minimumRoundTrip
        // The earliest an item can show something: its round trip, then its own bytes alone on the link.
        var bytes: [Int: Double] = [:]
        for e in shown where bytes[e.item] == nil { bytes[e.item] = Double(max(bytesToShow(e.item), 0)) }
        let earliest = { (item: Int) in r + bytes[item]! / capacity }
        result.perItem = shown.reduce(0) { $0 + max(0, min(earliest($1.item), $1.end) - $1.start) }
        // Pointwise: between consecutive starts and ends the cells on screen are fixed; the j-th
        // smallest prefix of their sizes fits the link's bytes from r + prefix / capacity on.
        var times = Set<Double>()
        for e in shown { times.insert(e.start); times.insert(e.end) }
        let sortedTimes = times.sorted()
        let byStart = shown.sorted { ($0.start, $0.item) < ($1.start, $1.item) }
        var active: [Exposure] = [], next = 0
        for (u, v) in zip(sortedTimes, sortedTimes.dropFirst()) {
            active.removeAll { $0.end <= u }
            while next < byStart.count, byStart[next].start <= u {
                if byStart[next].end > u { active.append(byStart[next]) }
                next += 1
            }
            var prefix = 0.0
            for size in active.map({ bytes[$0.item]! }).sorted() {
                prefix += size
                result.pointwise += max(0, min(r + prefix / capacity, v) - u)
            }
        }
        result.seconds = max(result.pointwise, result.perItem)
        return result
    }
}

extension Simulator {
    /// When each counted cell of `scenario` is on screen: a pass through the same view and
    /// motion in which nothing loads, so every counted appearance stays blank until it leaves
    /// (or the run ends). The scroll does not depend on the policy, so every run of the scenario
    /// under `configuration` shows the same cells at the same times.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func exposures(of scenario: Scenario, configuration: SimulationConfiguration) async throws -> [BlankTimeBound.Exposure] {
        let recording = try simulation(scenario, configuration: configuration, policy: PrefetchPolicies.none, recordsTimeline: true, recording: true)
        _ = try await recording.run()
        return recording.app.meter.timeline.blanks.map { BlankTimeBound.Exposure(item: $0.item, start: $0.start, end: $0.end) }
            .sorted { ($0.start, $0.item) < ($1.start, $1.item) }
    }

    /// The lower bound on blank cell-seconds of `scenario` under `configuration`: nil under
    /// independent latencies (no link: see <doc:Metrics>). With previews an item shows something
    /// once its preview's bytes moved.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func blankTimeBound(of scenario: Scenario, configuration: SimulationConfiguration) async throws -> BlankTimeBound.Result? {
        guard let link = BlankTimeBound.Link(configuration.network, latency: configuration.latency) else { return nil }
        let exposures = try await exposures(of: scenario, configuration: configuration)
        let sizes = scenario.sizes(on: configuration.network), seed = configuration.seed, previews = configuration.previews
        var result = BlankTimeBound.compute(exposures: exposures, bytesToShow: { previews.previewBytes(of: sizes.bytes(item: $0, seed: seed)) }, link: link)
        result.scenario = scenario.name
        return result
    }
}
