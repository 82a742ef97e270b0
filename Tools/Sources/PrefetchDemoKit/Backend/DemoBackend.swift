import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport
import PrefetchSimulation
import PrefetchTesting

/// Where the demo's data comes from and on which clock: the simulated network on virtual time
/// (``SimulatedBackend``) or a real server (``ServerBackend``).
///
/// A backend owns the model list and the app (the view, Apple's sample's data source, the
/// fetcher and the meter). An interactive run calls ``advance(to:)`` before a frame's input
/// (the simulated network finishes the loads due by then) and ``frameEnded()`` after stepping
/// the view (the simulated network settles; a server's feed brings pages in).
@MainActor
package protocol DemoBackend: AnyObject {
    /// The models the data source reads.
    var models: ModelList { get }
    /// The view and its data source over the backend's fetcher.
    var app: SampleApp<UUID, DisplayData> { get }
    /// Which loads are running now, for the screen.
    var board: LoadBoard { get }
    /// What the title line says about the data: the latency and the seed, or the server's address.
    var label: String { get }
    /// Scales the network's latency by `factor` (the `+` and `-` keys) and says what happened.
    func scaleLatency(by factor: Double) -> String
    /// New items arrive above the first (the `n` key: a feed's new posts), the app keeping the
    /// user's place; says what happened.
    func insertAbove(count: Int) -> String
    /// The simulated network's latency now (after `+` and `-`), or nil for a server's.
    var currentLatency: LatencyModel? { get }
    /// What the fetcher's memory figures count.
    var memoryCost: MemoryCost { get }
    /// Moves the backend's time to `time` (seconds since the start) before a frame's input.
    func advance(to time: Double) async
    /// The view has stepped: settles, or brings in what arrived.
    func frameEnded() async
    /// Plays the settings' script on `scene` to its end (or the settings' duration), calling
    /// `onFrame` after each frame but the first screen, and ends the run.
    func play(on scene: DemoScene, onFrame: (FrameDriver.Frame) async throws -> Bool) async throws -> SimulationResult
    /// The backend's own figures at the end of a run (a server's), or nil.
    func networkFigures() async -> NetworkFigures?
    /// Bytes on the wire so far (over a server), or nil.
    var wire: WireFigures? { get }
    /// Releases what the backend holds (connections, files). Safe to call twice.
    func close() async
}

/// The simulated network of Apple's sample: the simulator's ``PrefetchSimulation/Simulation`` of
/// the settings' scenario on UUIDs, whose network draws each load's latency from the settings'
/// model, keyed by the seed, the item and the load, so a scripted run repeats exactly and gives
/// `prefetch-bench`'s figures for the same scenario: it is the same code.
///
/// Scripted runs play it frame by frame (60 frames per simulated second); the interactive run
/// moves its time to the wall clock's each frame.
@MainActor
package final class SimulatedBackend: DemoBackend {
    /// The simulation: the loop (fetcher, network, virtual clock) and the app.
    package let simulation: Simulation<UUID, DisplayData>
    package let models: ModelList
    package let board: LoadBoard
    private let seed: UInt64
    private let valueBytes: Int
    /// With previews: where they come from and the link, for the title line.
    private let previewLabel: String?

    /// The settings' models (held whole) on a network of the settings' latency.
    package init(settings: DemoSettings) throws {
        let models = Model.make(count: settings.itemCount, seed: settings.seed)
        let indexes = Dictionary(uniqueKeysWithValues: models.map { ($0.identifier, $0.index) })
        let list = ModelList(models: models)
        let board = LoadBoard()
        self.board = board
        simulation = try Simulation(
            settings.scenario, policy: settings.policy, configuration: settings.simulationConfiguration,
            identifier: { list.model(at: $0)?.identifier }, item: { indexes[$0] ?? 0 }, value: { DisplayData(identifier: $0) },
            onEvent: { board.record($0) })
        simulation.app.isPrefetchingEnabled = settings.prefetching
        self.models = list
        seed = settings.seed
        valueBytes = settings.valueBytes
        previewLabel = settings.previewLink.map { "previews \(settings.previews) · \(DemoSettings.describe($0, sizes: false))" }
    }

    package var app: SampleApp<UUID, DisplayData> { simulation.app }

    /// `count` new models arrive above the first, with identifiers from the seed and their number.
    package func insertAbove(count: Int) -> String {
        let lowest = models.lowestNumber
        var random = SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: lowest) ^ 0xA11E_57A1)
        let arrived = (1...max(1, count)).map { k in
            Model(index: lowest - k, identifier: UUID.random(using: &random), title: "New \(k - lowest)")
        }
        models.prepend(arrived)
        do {
            try app.insertAbove(count: arrived.count)
        } catch {
            return "new items above failed: \(error)"
        }
        return "\(arrived.count) new items arrived above (\(models.count) now): the rows on screen stay put"
    }

    package var label: String { "\(previewLabel.map { "\($0) · " } ?? "")\(simulation.latency) · seed \(seed)" }
    package var currentLatency: LatencyModel? { simulation.latency }
    /// Every value costs the settings' decoded size: the simulator's memory model.
    package var memoryCost: MemoryCost { .modelled(bytesPerValue: valueBytes) }

    /// Scales the latency model; the change applies to attempts that start afterwards.
    package func scaleLatency(by factor: Double) -> String {
        simulation.latency = Self.scaled(simulation.latency, by: factor)
        return "latency now \(simulation.latency) for new loads"
    }

    /// `model` with every latency multiplied by `factor`, kept between 1 ms and 10 s.
    static func scaled(_ model: LatencyModel, by factor: Double) -> LatencyModel {
        func clamp(_ latency: Duration) -> Duration { min(.seconds(10), max(.milliseconds(1), latency * factor)) }
        switch model.distribution {
        case .fixed(let latency): return (try? LatencyModel(.fixed(clamp(latency)), failureRate: model.failureRate)) ?? model
        case .logNormal(let median, let p99):
            let distribution = LatencyModel.Distribution.logNormal(median: clamp(median), p99: max(clamp(p99), clamp(median)))
            return (try? LatencyModel(distribution, failureRate: model.failureRate)) ?? model
        case .bandwidth: return model
        }
    }

    package func advance(to time: Double) async {
        await simulation.advance(to: time)
    }

    package func frameEnded() async {
        await simulation.settle()
    }

    package func play(on scene: DemoScene, onFrame: (FrameDriver.Frame) async throws -> Bool) async throws -> SimulationResult {
        try await simulation.run(onFrame: onFrame)
    }

    package func networkFigures() async -> NetworkFigures? { nil }

    package var wire: WireFigures? { nil }

    package func close() async {}
}
