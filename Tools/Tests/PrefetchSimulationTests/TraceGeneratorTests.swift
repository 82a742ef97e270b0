import Foundation
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
