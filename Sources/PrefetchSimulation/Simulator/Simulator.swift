import Foundation
import HeapModule
import PrefetchCollectionView
import PrefetchKit

/// Replays a ``Scenario`` on virtual time through the real `CollectionView`
/// (or `TableView`) and the real `FetchScheduler`, with
/// simulated loads that finish at virtual times, and measures what a user would see.
///
/// Each frame, the simulator applies the scenario's gesture input, steps the view (which calls
/// the data source, the prefetch data source and the delegate exactly as an app's would be
/// called), and finishes the loads whose time has come, in time order. The data source is the
/// seeds' `CustomDataSource` logic on the scheduler: a prefetch sets the prefetch interest, a
/// cancel withdraws it, `cellForItemAt` shows cached data or adds a visible consumer, and a
/// consumer is withdrawn when its cell leaves the screen.
///
/// ```swift
/// let result = try Simulator.run(StandardSuite.scenario(.steady, layout: .grid), policy: .policy(.adaptive))
/// print(result.displayReadyRate)
/// ```
@MainActor
public final class Simulator {
    /// Runs one scenario under one policy.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func run(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration = SimulationConfiguration()
    ) throws -> SimulationResult {
        try runWithTimeline(scenario, policy: policy, configuration: configuration).result
    }

    /// Runs one scenario under one policy and keeps the timeline for a report.
    /// - Throws: ``SimulationError`` for an invalid scenario or configuration.
    public static func runWithTimeline(
        _ scenario: Scenario, policy: SimulationPolicy, configuration: SimulationConfiguration = SimulationConfiguration()
    ) throws -> (result: SimulationResult, timeline: SimulationTimeline) {
        try scenario.validate()
        try configuration.validate()
        var schedule: [Appearance]?
        if case .clairvoyant = policy {
            let dry = Simulator(scenario: scenario, configuration: configuration, mode: .recordAppearances, policy: PrefetchPolicies.none)
            try dry.drive()
            schedule = dry.core.firstAppearances()
        }
        let viewPolicy: any PrefetchPolicy
        switch policy {
        case .policy(let p): viewPolicy = p
        case .clairvoyant: viewPolicy = PrefetchPolicies.none
        }
        let sim = Simulator(scenario: scenario, configuration: configuration, mode: .simulate(schedule), policy: viewPolicy)
        try sim.drive()
        return (sim.core.result(scenario: scenario.name, policy: policy.name, frameTimes: sim.frameTimes), sim.core.timeline)
    }

    enum Mode {
        case recordAppearances
        case simulate([Appearance]?)
    }

    let scenario: Scenario
    let configuration: SimulationConfiguration
    let core: SimulationCore
    let view: ItemScrollView
    private var frameTimes: [Double] = []
    private let adapter: AnyObject

    private init(scenario: Scenario, configuration: SimulationConfiguration, mode: Mode, policy: any PrefetchPolicy) {
        self.scenario = scenario
        self.configuration = configuration
        self.core = SimulationCore(scenario: scenario, configuration: configuration, mode: mode)
        let frame = CGRect(x: 0, y: 0, width: scenario.viewport.width, height: scenario.viewport.height)
        switch scenario.layout.kind {
        case .grid:
            let layout = try! FlowLayout(
                itemSize: CGSize(width: scenario.layout.itemWidth, height: scenario.layout.itemHeight),
                minimumLineSpacing: scenario.layout.spacing, minimumInteritemSpacing: scenario.layout.spacing)
            let collection = CollectionView(frame: frame, collectionViewLayout: layout)
            let source = GridAdapter(core: core)
            collection.register(SimulatedGridCell.self, forCellWithReuseIdentifier: SimulatedGridCell.reuseIdentifier)
            collection.dataSource = source
            collection.prefetchDataSource = source
            collection.delegate = source
            view = collection
            adapter = source
        case .list:
            let table = TableView(frame: frame)
            table.rowHeight = scenario.layout.itemHeight
            let source = ListAdapter(core: core)
            table.register(SimulatedListCell.self, forCellReuseIdentifier: SimulatedListCell.reuseIdentifier)
            table.dataSource = source
            table.prefetchDataSource = source
            table.delegate = source
            view = table
            adapter = source
        }
        view.prefetchPolicy = policy
        core.view = view
    }

    /// The gesture being performed.
    private enum Active {
        case idle
        case drag(speed: Double, until: Double)
        case fling
        case pause(until: Double)
    }

    private func drive() throws {
        let dt = 1 / configuration.frameRate
        let clock = ContinuousClock()
        var gestures: [Gesture] = []
        var samples: [OffsetSample] = []
        switch scenario.motion {
        case .gestures(let g): gestures = g
        case .samples(let s): samples = s
        }
        var nextGesture = 0
        var active = Active.idle
        var motionEnded: Double?
        var frame = 0
        view.step(to: 0)
        core.afterFrame(time: 0)
        while true {
            frame += 1
            let t = Double(frame) * dt
            if t > configuration.maxDuration { break }
            if let ended = motionEnded, t > ended + configuration.tail { break }
            let started = clock.now
            core.finishLoads(upTo: t)
            // Gesture input for this frame.
            if samples.isEmpty {
                while case .idle = active, nextGesture < gestures.count {
                    let gesture = gestures[nextGesture]
                    nextGesture += 1
                    switch gesture {
                    case .drag(let speed, let duration):
                        active = .drag(speed: speed, until: t - dt + duration)
                    case .fling(let velocity):
                        view.fling(velocity: velocity)
                        active = .fling
                    case .jump(let item):
                        try view.scrollToItem(at: IndexPath(item: item, section: 0), at: .top, animated: false)
                    case .pause(let duration):
                        active = .pause(until: t - dt + duration)
                    }
                }
                switch active {
                case .drag(let speed, let until):
                    if t <= until + 1e-9 {
                        view.drag(by: speed * dt)
                    } else {
                        view.endDragging()
                        active = .idle
                    }
                case .pause(let until):
                    if t > until + 1e-9 { active = .idle }
                case .fling, .idle:
                    break
                }
                if case .idle = active, nextGesture >= gestures.count, motionEnded == nil { motionEnded = t }
            } else if motionEnded == nil {
                let target = Self.interpolate(samples, at: t)
                view.drag(by: target - view.contentOffset.y)
                if t >= samples[samples.count - 1].time {
                    view.endDragging()
                    motionEnded = t
                }
            }
            view.step(to: t)
            if case .fling = active, !view.isDecelerating { active = .idle }
            core.afterFrame(time: t)
            frameTimes.append(Self.microseconds(started.duration(to: clock.now)))
            if frame % 3 == 0 { core.sampleFrame(time: t) }
        }
        core.finish(at: Double(frame) * dt)
    }

    static func interpolate(_ samples: [OffsetSample], at t: Double) -> Double {
        guard t > samples[0].time else { return samples[0].offset }
        guard let upper = samples.firstIndex(where: { $0.time >= t }) else { return samples[samples.count - 1].offset }
        let a = samples[upper - 1], b = samples[upper]
        guard b.time > a.time else { return b.offset }
        return a.offset + (b.offset - a.offset) * (t - a.time) / (b.time - a.time)
    }

    private static func microseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) * 1e-12
    }
}

/// A first appearance of an item, for the clairvoyant reference.
struct Appearance: Comparable {
    var time: Double
    var item: Int
    static func < (a: Appearance, b: Appearance) -> Bool { (a.time, a.item) < (b.time, b.item) }
}
