import ArgumentParser
import Foundation
import PrefetchSimulation
import PrefetchTesting
import PrefetchToolSupport

/// Runs the scenario suite (or trace files) for every policy and prints, writes and draws the results.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Score prefetch policies against a clairvoyant reference on simulated scrolling (the default).",
        discussion: """
            Runs each scenario of the standard suite (or a trace file, or every trace in a folder) through the \
            real collection view, data source and AsyncFetcher on virtual time, once per policy, and prints one \
            row per scenario and policy. The same seed gives the same numbers.
            """)

    @Option(name: .long, help: "Run only these scenarios (repeatable). Known: \(StandardSuite.all.map(\.name).joined(separator: ", ")).")
    var scenario: [String] = []

    @Option(name: .long, help: "Run only these policies (repeatable): \(SimulationPolicy.standard.map(\.name).joined(separator: ", ")).")
    var policy: [String] = []

    @Option(name: .long, help: "Seed for every random draw.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Run a scroll trace from this JSON file instead of the suite.")
    var trace: String?

    @Option(name: .long, help: "Run every trace (*.json) in this folder instead of the suite, in name order.")
    var traces: String?

    @OptionGroup(title: "Latency (the lte profile unless these say otherwise)")
    var latency: LatencyOptions

    @Option(name: .long, help: "Most loads at once (1 to 64).")
    var cap: Int = 6

    @Option(name: .long, help: "Write the results as JSON to this file.")
    var json: String?

    @Option(name: .long, help: "Write a self-contained HTML report with timelines to this file.")
    var report: String?

    @Flag(name: .long, help: "Sweep each fixed-window policy's window from 0.25 to 6 viewports ahead and adaptive's aggressiveness from 0.25 to 2, per latency profile (every profile unless --latency-profile names one); plot it with --report.")
    var frontier = false

    @Flag(name: .long, help: "No progress line.")
    var quiet = false

    func validate() throws {
        guard (1...64).contains(cap) else { throw ValidationError("--cap \(cap) is out of range; use 1 to 64") }
        _ = try latency.model(default: LatencyProfile.lte.model)
        let known = StandardSuite.all.map(\.name)
        for name in scenario where !known.contains(name) {
            throw ValidationError("--scenario '\(name)' is unknown; known scenarios: \(known.joined(separator: ", "))")
        }
        for name in policy { _ = try SimulationPolicy.named(name) }
        if trace != nil || traces != nil, !scenario.isEmpty { throw ValidationError("--trace/--traces and --scenario cannot be combined") }
        if trace != nil, traces != nil { throw ValidationError("--trace and --traces cannot be combined") }
    }

    @MainActor
    mutating func run() async throws {
        var configuration = SimulationConfiguration()
        configuration.seed = seed
        configuration.maxConcurrentLoads = cap
        configuration.latency = try latency.model(default: LatencyProfile.lte.model)
        let scenarios: [Scenario]
        if let trace {
            scenarios = [try TraceFile.load(from: URL(fileURLWithPath: trace))]
        } else if let traces {
            scenarios = try TraceFile.loadFolder(URL(fileURLWithPath: traces))
        } else if scenario.isEmpty {
            scenarios = StandardSuite.all
        } else {
            scenarios = StandardSuite.all.filter { scenario.contains($0.name) }
        }
        if frontier {
            try await runFrontier(scenarios, configuration: configuration)
            return
        }
        let policies = policy.isEmpty ? SimulationPolicy.standard : try policy.map(SimulationPolicy.named)
        let run = try await SuiteRun(scenarios, policies: policies, configuration: configuration, timelines: report != nil) { done, total, label in
            if !quiet { FileHandle.standardError.write(Data("\r[\(done + 1)/\(total)] \(label)\u{1B}[K".utf8)) }
        }
        if !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        print("latency \(configuration.latency), cap \(cap), seed \(seed)\n")
        print(run.text)
        if let json {
            try OutputFile.write(run.json(), to: json)
            print("wrote \(json)")
        }
        if let report {
            try OutputFile.write(Data(run.report(subtitle: "latency \(configuration.latency), cap \(cap), seed \(seed)").utf8), to: report)
            print("wrote \(report)")
        }
    }
}

extension RunCommand {
    @MainActor
    func runFrontier(_ scenarios: [Scenario], configuration: SimulationConfiguration) async throws {
        let profiles = latency.latencyProfile.map { [$0] } ?? LatencyProfile.allCases
        var sweeps: [Frontier.Sweep] = []
        for profile in profiles {
            var configuration = configuration
            configuration.latency = profile.model
            let sweep = try await Frontier.sweep(scenarios, configuration: configuration, label: "\(profile.rawValue): \(profile.model)") { done, total in
                if !quiet { FileHandle.standardError.write(Data("\r[\(done + 1)/\(total)] frontier \(profile.rawValue)\u{1B}[K".utf8)) }
            }
            if !quiet { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            print("\(profile.rawValue): latency \(profile.model), cap \(cap), seed \(seed), \(scenarios.count) scenarios")
            print(sweep.text + "\n")
            sweeps.append(sweep)
        }
        if let report {
            let page = Frontier.report(sweeps, subtitle: "cap \(cap), seed \(seed), scenarios: \(scenarios.map(\.name).joined(separator: ", "))")
            try OutputFile.write(Data(page.utf8), to: report)
            print("wrote \(report)")
        }
    }
}
