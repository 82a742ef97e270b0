import ArgumentParser
import Foundation
import PrefetchSimulation

/// `prefetch-bench generate`: writes trace files from the stochastic user model.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write scroll traces from a stochastic user model.",
        discussion: """
            Writes COUNT traces, seeds SEED, SEED+1, ..., as PROFILE-SEED.json in DIR. The same seed gives the \
            same trace. Train on seeds 1-999 (--seed 1 --count 999); report on seeds 1000 and up. With --moments, \
            traces of gestures with the moments apps make (animated scrolls, status-bar taps, restores, inserts and \
            deletes above, rubber-banding, rotation; self-sizing rows of different heights in the feed), as \
            PROFILE-moments-SEED.json.
            """)

    @Option(name: .long, help: "How many traces (\(TraceGenerator.countRange.lowerBound) to \(TraceGenerator.countRange.upperBound)).")
    var count: Int = 10

    @Option(name: .long, help: "The first trace's seed; the others follow (1 or more).")
    var seed: UInt64 = 1

    @Option(name: .long, help: "The kind of session: \(TraceGenerator.Profile.allCases.map(\.rawValue).joined(separator: ", ")).")
    var profile: String = "feed"

    @Option(name: .long, help: "Seconds per trace (\(Int(TraceGenerator.durationRange.lowerBound)) to \(Int(TraceGenerator.durationRange.upperBound))).")
    var duration: Double = 30

    @Option(name: .long, help: "The folder to write to (created if missing).")
    var out: String

    @Flag(name: .long, help: "Write traces of gestures with the moments apps make, on a view that rubber-bands.")
    var moments = false

    func validate() throws {
        guard TraceGenerator.countRange.contains(count) else {
            throw ValidationError("--count \(count) is out of range; use \(TraceGenerator.countRange.lowerBound) to \(TraceGenerator.countRange.upperBound)")
        }
        guard seed >= 1 else { throw ValidationError("--seed 0 is out of range; use 1 or more") }
        guard seed <= UInt64.max - UInt64(count) else { throw ValidationError("--seed \(seed) is out of range; SEED + COUNT must fit in 64 bits") }
        guard duration.isFinite, TraceGenerator.durationRange.contains(duration) else {
            throw ValidationError("--duration \(duration) is out of range; use \(Int(TraceGenerator.durationRange.lowerBound)) to \(Int(TraceGenerator.durationRange.upperBound)) seconds")
        }
        guard TraceGenerator.Profile(rawValue: profile) != nil else {
            throw ValidationError("--profile '\(profile)' is unknown; use one of \(TraceGenerator.Profile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let profile = TraceGenerator.Profile(rawValue: profile)!
        let folder = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for offset in 0..<UInt64(count) {
            let trace = moments
                ? try TraceGenerator.momentsTrace(profile: profile, seed: seed + offset, duration: duration)
                : try TraceGenerator.trace(profile: profile, seed: seed + offset, duration: duration)
            try TraceFile.encode(trace).write(to: folder.appendingPathComponent("\(trace.name).json"))
        }
        print("wrote \(count) \(profile.rawValue)\(moments ? " moments" : "") traces (seeds \(seed)...\(seed + UInt64(count) - 1)) to \(out)")
    }
}
