import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchSimulation
import PrefetchTesting

/// Where the demo's data comes from and on which clock: the simulated network on virtual time
/// (``SimulatedBackend``) or a real server (``ServerBackend``).
///
/// A backend owns the model list, the fetcher and the meter that listens to the fetcher. A
/// driver calls ``advance(to:)`` before a frame's input (the simulated network finishes the
/// loads due by then) and ``frameEnded(_:)`` after stepping the view (the simulated network
/// settles; a server's feed brings pages in).
@MainActor
package protocol DemoBackend: AnyObject {
    /// The models the data sources read.
    var models: ModelList { get }
    /// The fetcher the data sources use.
    var fetcher: AsyncFetcher<UUID, DisplayData> { get }
    /// The completion handlers the data sources give the fetcher.
    var deliveries: MainActorDeliveries<UUID> { get }
    /// Measures what the user sees; counts loads from the fetcher's events.
    var meter: ReadinessMeter { get }
    /// Which loads are running now, for the screen.
    var board: LoadBoard { get }
    /// The time now, in seconds since the run started.
    var now: Double { get }
    /// What the title line says about the data: the latency and the seed, or the server's address.
    var label: String { get }
    /// Scales the network's latency by `factor` (the `+` and `-` keys) and says what happened.
    func scaleLatency(by factor: Double) -> String
    /// Moves the backend's time to `time` (seconds since the start) before a frame's input.
    func advance(to time: Double) async
    /// The view has stepped: brings in what arrived.
    func frameEnded(_ scene: DemoScene) async
    /// Plays `script` on `scene` to its end (or `duration`), calling `onFrame` after each frame.
    func play(_ script: Script, on scene: DemoScene, duration: Double?, onFrame: (ScriptedRun.Frame) async throws -> Bool) async throws
    /// The run's summary with the backend's own figures.
    func summary(of scene: DemoScene) async -> DemoSummary
    /// Releases what the backend holds (connections, files). Safe to call twice.
    func close() async
}

/// The simulated network of Apple's sample, on virtual time: a
/// ``PrefetchSimulation/VirtualTimeLoop`` whose network draws each load's latency from the
/// settings' model, keyed by the seed, the item and the load, so a scripted run repeats exactly.
///
/// Scripted runs move its time frame by frame (60 frames per simulated second); the interactive
/// run moves it to the wall clock's time each frame.
@MainActor
package final class SimulatedBackend: DemoBackend {
    /// The loop: the fetcher, its network and the virtual clock.
    package let loop: VirtualTimeLoop<UUID, DisplayData>
    package let models: ModelList
    package let meter: ReadinessMeter
    package let board: LoadBoard
    private let indexes: [UUID: Int]
    private let seed: UInt64

    /// The settings' models (held whole) on a network of the settings' latency.
    package init(settings: DemoSettings) throws {
        let models = Model.make(count: settings.itemCount, seed: settings.seed)
        let indexes = Dictionary(uniqueKeysWithValues: models.map { ($0.identifier, $0.index) })
        let clock = ManualClockSeconds()
        let meter = ReadinessMeter(now: clock.seconds)
        let board = LoadBoard()
        loop = try VirtualTimeLoop(
            configuration: settings.fetcherConfiguration, clock: clock.clock, latency: settings.latency, seed: settings.seed,
            cost: { $0.payload.count + 64 }, item: { indexes[$0] ?? 0 }, value: { DisplayData(identifier: $0) },
            onEvent: { event in
                board.record(event)
                meter.record(event, item: { indexes[$0] ?? 0 })
            })
        self.models = ModelList(models: models)
        self.meter = meter
        self.board = board
        self.indexes = indexes
        seed = settings.seed
    }

    package var fetcher: AsyncFetcher<UUID, DisplayData> { loop.fetcher }
    package var deliveries: MainActorDeliveries<UUID> { loop.deliveries }
    package var now: Double { loop.now }
    package var label: String { "\(loop.network.latency) · seed \(seed)" }

    /// Scales the latency model; the change applies to attempts that start afterwards.
    package func scaleLatency(by factor: Double) -> String {
        loop.network.latency = Self.scaled(loop.network.latency, by: factor)
        return "latency now \(loop.network.latency) for new loads"
    }

    /// `model` with every latency multiplied by `factor`, kept between 1 ms and 10 s.
    static func scaled(_ model: LatencyModel, by factor: Double) -> LatencyModel {
        func clamp(_ s: Double) -> Double { min(10, max(0.001, s * factor)) }
        let rate = model.failureRate
        switch model.distribution {
        case .fixed(let s): return (try? .fixed(clamp(s), failureRate: rate)) ?? model
        case .logNormal(let median, let p99):
            return (try? .logNormal(median: clamp(median), p99: max(clamp(p99), clamp(median)), failureRate: rate)) ?? model
        case .bandwidth: return model
        }
    }

    package func advance(to time: Double) async {
        await loop.advance(to: max(time, loop.now))
    }

    package func frameEnded(_ scene: DemoScene) async {
        await loop.settle()
    }

    package func play(
        _ script: Script, on scene: DemoScene, duration: Double?, onFrame: (ScriptedRun.Frame) async throws -> Bool
    ) async throws {
        var gestures = GestureDriver(gestures: script.gestures)
        let meter = self.meter
        _ = try await loop.play(
            &gestures, on: scene.view, frameRate: ScriptedRun.frameRate, tail: ScriptedRun.tail, duration: duration,
            step: { scene.step(to: $0) },
            afterFrame: { frame in
                guard frame.index > 0 else {
                    meter.startCounting()
                    return true
                }
                return try await onFrame(ScriptedRun.Frame(time: frame.time, isWholeSecond: frame.index % Int(ScriptedRun.frameRate) == 0))
            })
    }

    package func summary(of scene: DemoScene) async -> DemoSummary {
        scene.summary
    }

    package func close() async {}
}

/// A `ManualClock` and its time in seconds, for a meter.
struct ManualClockSeconds: Sendable {
    let clock = ManualClock()
    var seconds: @Sendable () -> Double {
        let clock = self.clock
        return { Double(clock.now.offset.components.seconds) + Double(clock.now.offset.components.attoseconds) * 1e-18 }
    }
}
