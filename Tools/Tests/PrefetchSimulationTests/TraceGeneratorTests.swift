import Foundation
import PrefetchCollectionView
import PrefetchKit
import Testing
@testable import PrefetchSimulation

@Suite struct TraceGeneratorTests {
    @Test(arguments: TraceGenerator.Profile.allCases)
    func deterministicBySeedAndReadableByTheReader(profile: TraceGenerator.Profile) throws {
        let a = try TraceGenerator.trace(profile: profile, seed: 1_234)
        let b = try TraceGenerator.trace(profile: profile, seed: 1_234)
        let c = try TraceGenerator.trace(profile: profile, seed: 1_235)
        #expect(a == b)
        #expect(a.motion != c.motion)
        let read = try TraceFile.parse(TraceFile.encode(a), fileName: "\(a.name).json")
        #expect(read.name == "\(profile.rawValue)-1234" && read.layout == a.layout)
        guard case .samples(let written) = a.motion, case .samples(let samples) = read.motion else {
            Issue.record("expected samples")
            return
        }
        #expect(samples.count == written.count)
        #expect(samples.allSatisfy { $0.phase != nil })
        let range = a.layout.offsetRange(viewport: a.viewport)
        #expect(samples.allSatisfy { range.contains($0.offset) })
        // At least the duration; the last move and a half-second rest may run past it.
        #expect((30...45).contains(samples.last!.time))
        // Every ingredient of the model shows up: flings (touch-ups), drags and rests.
        #expect(samples.contains { $0.restingOffset != nil })
        #expect(samples.contains { $0.phase == .touching })
        #expect(samples.contains { $0.phase == .idle })
    }

    @Test func feedDwellHasAMedianOfAbout1point7Seconds() throws {
        // The oracle is the measurement the model follows (about 1.7 s per feed item), read back
        // from the samples: the length of each run of idle samples.
        var dwells: [Double] = []
        for seed in UInt64(1)...20 {
            guard case .samples(let samples) = try TraceGenerator.trace(profile: .feed, seed: seed, duration: 60).motion else { continue }
            var start: Double?
            for s in samples {
                if s.phase == .idle {
                    if start == nil { start = s.time }
                } else if let began = start {
                    dwells.append(s.time - began)
                    start = nil
                }
            }
        }
        dwells.sort()
        #expect(dwells.count > 100)
        #expect((1.5...2.0).contains(dwells[dwells.count / 2]), "median dwell \(dwells[dwells.count / 2]) s")
    }

    @Test func searchesFlingFasterThanTheFeed() throws {
        func speeds(_ profile: TraceGenerator.Profile) throws -> Double {
            guard case .samples(let s) = try TraceGenerator.trace(profile: profile, seed: 7, duration: 60).motion else { return 0 }
            let moved = zip(s, s.dropFirst()).map { abs($1.offset - $0.offset) }.reduce(0, +)
            return moved / s.last!.time
        }
        #expect(try speeds(.search) > 2 * speeds(.feed))
    }

    @Test func aDurationOutOfRangeNamesTheRule() {
        #expect(throws: SimulationError("duration 2.0 s is out of range; use 5.0 to 600.0 s")) {
            try TraceGenerator.trace(profile: .feed, seed: 1, duration: 2)
        }
    }

    @Test func anEmptyFolderIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("empty-traces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: SimulationError(path: folder.path, "the trace folder holds no *.json trace")) { try TraceFile.loadFolder(folder) }
    }
}

@Suite struct MomentsTraceGeneratorTests {
    /// The kind of a gesture, an insert or a delete telling whether it happens during the gesture before.
    private func kind(_ gesture: ScrollGesture) -> String {
        switch gesture {
        case .drag: "drag"
        case .fling: "fling"
        case .flingFor: "flingFor"
        case .jump: "jump"
        case .pause: "pause"
        case .animate: "animate"
        case .statusBarTap: "statusBarTap"
        case .restore: "restore"
        case .rotate: "rotate"
        case .insertAbove(_, let after): after == nil ? "insertAbove" : "insertAbove during"
        case .deleteAbove(_, let after): after == nil ? "deleteAbove" : "deleteAbove during"
        }
    }

    private func gestures(_ scenario: Scenario) -> [ScrollGesture] {
        if case .gestures(let gestures) = scenario.motion { gestures } else { [] }
    }

    @Test(arguments: TraceGenerator.Profile.allCases)
    func deterministicBySeedAndReadBackAsWritten(profile: TraceGenerator.Profile) throws {
        let a = try TraceGenerator.momentsTrace(profile: profile, seed: 1_234)
        #expect(try a == TraceGenerator.momentsTrace(profile: profile, seed: 1_234))
        #expect(try a.motion != TraceGenerator.momentsTrace(profile: profile, seed: 1_235).motion)
        #expect(a.name == "\(profile.rawValue)-moments-1234" && a.bounces)
        try a.validate()
        #expect(try TraceFile.parse(TraceFile.encode(a), fileName: "\(a.name).json") == a)
    }

    @Test func everyMomentShowsUpAndTheFeedsRowsSizeThemselvesOnSomeSeeds() throws {
        var kinds: [TraceGenerator.Profile: Set<String>] = [:]
        var selfSizing: [Bool] = []
        var searchLengths: [Int] = []
        for profile in TraceGenerator.Profile.allCases {
            for seed in UInt64(1)...20 {
                let trace = try TraceGenerator.momentsTrace(profile: profile, seed: seed)
                kinds[profile, default: []].formUnion(gestures(trace).map(kind))
                if profile == .feed { selfSizing.append(trace.selfSizing) }
                if profile == .search { searchLengths.append(trace.layout.itemCount) }
                #expect(trace.layout.kind == (profile == .gallery ? .grid : .list))
                #expect((trace.layout.rowHeights != nil) == (profile == .feed))
            }
        }
        let everywhere: Set = ["drag", "fling", "jump", "pause", "animate", "statusBarTap", "restore", "rotate"]
        for profile in TraceGenerator.Profile.allCases {
            #expect(kinds[profile, default: []].isSuperset(of: everywhere), "\(profile): \(everywhere.subtracting(kinds[profile, default: []]))")
        }
        // A rotation mid-fling: rare in a search, common in the gallery.
        #expect(kinds[.gallery, default: []].contains("flingFor") && kinds[.feed, default: []].contains("flingFor"))
        // New posts and new photos arrive above, at rest and mid-drag; old ones go. Search results do not change.
        for profile in [TraceGenerator.Profile.feed, .gallery] {
            #expect(kinds[profile, default: []].isSuperset(of: ["insertAbove", "insertAbove during", "deleteAbove"]), "\(profile)")
        }
        #expect(kinds[.search, default: []].isDisjoint(with: ["insertAbove", "insertAbove during", "deleteAbove"]))
        #expect(selfSizing.contains(true) && selfSizing.contains(false))
        // Some result lists are short enough for a fling to reach their end (150 rows are 9,900 points).
        #expect(searchLengths.contains { $0 < 600 } && searchLengths.contains { $0 > 2_000 })
    }

    @Test func everyScenarioOfTheMomentsSuiteReadsBackAsWritten() throws {
        for scenario in MomentsSuite.all {
            #expect(try TraceFile.parse(TraceFile.encode(scenario), fileName: "\(scenario.name).json") == scenario, "\(scenario.name)")
        }
    }

    @MainActor @Test func generatedMomentsPlayThroughTheAppPastBothEnds() async throws {
        // One trace of each profile, each played through the app's path: no problem reported,
        // the session lasts about the duration asked for, and the views rubber-band past the
        // top and, on the search's short list, past the bottom.
        var pastTop = 0, pastBottom = 0
        for (profile, seed) in [(TraceGenerator.Profile.feed, UInt64(2)), (.search, 2), (.gallery, 1)] {
            let trace = try TraceGenerator.momentsTrace(profile: profile, seed: seed)
            var beyond = (top: false, bottom: false), last = 0.0
            let simulation = try Simulator.simulation(trace, configuration: .fixed200ms(), policy: PrefetchPolicies.adaptive)
            _ = try await simulation.run { frame in
                let view = simulation.app.view
                let offset = Double(view.contentOffset.y), range = view.contentOffsetRange
                if offset < Double(range.lowerBound) - 1 { beyond.top = true }
                if offset > Double(range.upperBound) + 1 { beyond.bottom = true }
                last = frame.time
                return true
            }
            #expect(simulation.app.prefetchProblems.isEmpty, "\(trace.name)")
            #expect(simulation.app.meter.readiness.displayed > 0, "\(trace.name)")
            #expect((25...60).contains(last), "\(trace.name) lasted \(last) s")
            pastTop += beyond.top ? 1 : 0
            pastBottom += beyond.bottom ? 1 : 0
        }
        #expect(pastTop >= 1 && pastBottom >= 1, "past the top in \(pastTop), past the bottom in \(pastBottom)")
    }

    @Test func aDurationOutOfRangeNamesTheRule() {
        #expect(throws: SimulationError("duration 601.0 s is out of range; use 5.0 to 600.0 s")) {
            try TraceGenerator.momentsTrace(profile: .gallery, seed: 1, duration: 601)
        }
    }
}
