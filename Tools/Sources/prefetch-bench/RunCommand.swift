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

    @Option(name: .long, help: "Run only these scenarios (repeatable), of the suite --suite names. Known: \(StandardSuite.all.map(\.name).joined(separator: ", ")); moments: \(MomentsSuite.all.map(\.name).joined(separator: ", ")).")
    var scenario: [String] = []

    @Option(name: .long, help: "The suite to run: standard (finger drags, flings and jumps; the default) or moments (what apps do: animated scrolls, status-bar taps, restores, rotation).")
    var suite: String = "standard"

    /// The scenarios of `--suite`.
    var suiteScenarios: [Scenario] { suite == "moments" ? MomentsSuite.all : StandardSuite.all }

    @Option(name: .long, help: "Run only these policies (repeatable): \(SimulationPolicy.standard.map(\.name).joined(separator: ", ")), or a peer: \(SimulationPolicy.peers.map(\.name).joined(separator: ", ")).")
    var policy: [String] = []

    @Flag(name: .long, help: "Also run the peers, other libraries' prefetching modelled from their documented defaults: \(SimulationPolicy.peers.map(\.name).joined(separator: ", ")).")
    var peers = false

    @Option(name: .long, help: "Seed for every random draw.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Run a scroll trace from this JSON file instead of the suite.")
    var trace: String?

    @Option(name: .long, help: "Run every trace (*.json) in this folder instead of the suite, in name order.")
    var traces: String?

    @OptionGroup(title: "Latency (the lte profile unless these say otherwise)")
    var latency: LatencyOptions

    @OptionGroup(title: "Network")
    var network: NetworkOptions

    @OptionGroup(title: "Previews (none unless these say otherwise)")
    var previews: PreviewOptions

    @Option(name: .long, help: "The app binding that drives the prefetching: uikit (a ScrollViewPrefetcher hearing the view's delegate callbacks; the default) or swiftui (a ListPrefetcher fed what onScrollGeometryChange and onScrollPhaseChange report).")
    var toolkit: String = Toolkit.uikit.rawValue

    @Option(name: .long, help: "Most loads at once (1 to 64).")
    var cap: Int = 6

    @OptionGroup(title: "Budgets (no limit unless these say otherwise)")
    var budgets: BudgetOptions

    @Option(name: .long, help: "Write the results as JSON to this file (a path relative to the current folder; the bench prints the absolute path it wrote).")
    var json: String?

    @Option(name: .long, help: "Write a self-contained HTML report with timelines to this file (a path relative to the current folder; the bench prints the absolute path it wrote, and warns when it is inside a git work tree).")
    var report: String?

    @Flag(name: .long, help: "Sweep each fixed-window policy's window from 0.25 to 6 viewports ahead and adaptive's aggressiveness from 0.25 to 2, per latency profile (every profile unless --latency-profile names one); plot it with --report.")
    var frontier = false

    @Flag(name: .long, help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false

    func validate() throws {
        guard (1...64).contains(cap) else { throw ValidationError("--cap \(cap) is out of range; use 1 to 64") }
        try budgets.validate()
        _ = try parsedToolkit()
        _ = try latency.model(default: LatencyProfile.lte.model)
        _ = try network.model(profile: .lte)
        guard ["standard", "moments"].contains(suite) else {
            throw ValidationError("--suite '\(suite)' is unknown; use standard or moments")
        }
        let known = suiteScenarios.map(\.name)
        for name in scenario where !known.contains(name) {
            throw ValidationError("--scenario '\(name)' is unknown in the \(suite) suite; known scenarios: \(known.joined(separator: ", "))")
        }
        for name in policy { _ = try SimulationPolicy.named(name) }
        if trace != nil || traces != nil, suite != "standard" { throw ValidationError("--trace/--traces and --suite cannot be combined") }
        if trace != nil || traces != nil, !scenario.isEmpty { throw ValidationError("--trace/--traces and --scenario cannot be combined") }
        if trace != nil, traces != nil { throw ValidationError("--trace and --traces cannot be combined") }
        if frontier, peers { throw ValidationError("--peers and --frontier cannot be combined; the frontier sweeps our policies' windows only") }
    }

    @MainActor
    mutating func run() async throws {
        var configuration = SimulationConfiguration()
        configuration.seed = seed
        configuration.maxConcurrentLoads = cap
        configuration.latency = try latency.model(default: LatencyProfile.lte.model)
        configuration.network = try network.model(profile: latency.latencyProfile ?? .lte)
        configuration.knowsPayloadSizes = network.knownSizes
        try budgets.apply(to: &configuration)
        try previews.apply(to: &configuration)
        configuration.toolkit = try parsedToolkit()
        let scenarios: [Scenario]
        if let trace {
            scenarios = [try TraceFile.load(from: URL(fileURLWithPath: trace))]
        } else if let traces {
            scenarios = try TraceFile.loadFolder(URL(fileURLWithPath: traces))
        } else if scenario.isEmpty {
            scenarios = suiteScenarios
        } else {
            scenarios = suiteScenarios.filter { scenario.contains($0.name) }
        }
        if frontier {
            try await runFrontier(scenarios, configuration: configuration)
            return
        }
        var policies = policy.isEmpty ? SimulationPolicy.standard : try policy.map(SimulationPolicy.named)
        if peers {
            policies += SimulationPolicy.peers.filter { peer in !policies.contains { $0.name == peer.name } }
        }
        let progress = ProgressLine(quiet: quiet)
        let run = try await SuiteRun(scenarios, policies: policies, configuration: configuration, timelines: report != nil) { done, total, label in
            progress.show("[\(done + 1)/\(total)] \(label)")
        }
        progress.clear()
        print("latency \(configuration.latency), network \(configuration.network), cap \(cap), seed \(seed)\(toolkitSummary)\(budgets.summary)\(previews.summary(configuration))\n")
        print(run.text)
        if let json {
            try OutputFile.write(run.json(), to: json, what: "the results as JSON")
        }
        if let report {
            let subtitle = "latency \(configuration.latency), network \(configuration.network), cap \(cap), seed \(seed)"
            try OutputFile.write(Data(run.report(subtitle: subtitle).utf8), to: report, what: "the HTML report")
        }
    }
}

extension RunCommand {
    /// `--toolkit` as a ``Toolkit``.
    /// - Throws: `ValidationError` naming the flag, the value and the allowed values.
    func parsedToolkit() throws -> Toolkit {
        do { return try Toolkit(parsing: toolkit) } catch {
            throw ValidationError("--toolkit '\(toolkit)' is unknown; use \(Toolkit.allCases.map(\.rawValue).joined(separator: " or "))")
        }
    }

    /// The header's note of a toolkit other than the default: nothing for UIKit, so its output stays as it was.
    var toolkitSummary: String { toolkit == Toolkit.uikit.rawValue ? "" : ", toolkit \(toolkit)" }

    @MainActor
    func runFrontier(_ scenarios: [Scenario], configuration: SimulationConfiguration) async throws {
        let profiles = latency.latencyProfile.map { [$0] } ?? LatencyProfile.allCases
        var sweeps: [Frontier.Sweep] = []
        let progress = ProgressLine(quiet: quiet)
        for profile in profiles {
            var configuration = configuration
            configuration.latency = profile.model
            configuration.network = try network.model(profile: profile)
            let sweep = try await Frontier.sweep(scenarios, configuration: configuration, label: "\(profile.rawValue): \(profile.model)") { done, total in
                progress.show("[\(done + 1)/\(total)] frontier \(profile.rawValue)")
            }
            progress.clear()
            print("\(profile.rawValue): latency \(profile.model), network \(configuration.network), cap \(cap), seed \(seed), \(scenarios.count) scenarios")
            print(sweep.text + "\n")
            sweeps.append(sweep)
        }
        if let report {
            let page = Frontier.report(sweeps, subtitle: "cap \(cap), seed \(seed), scenarios: \(scenarios.map(\.name).joined(separator: ", "))")
            try OutputFile.write(Data(page.utf8), to: report, what: "the HTML report")
        }
    }
}

extension HTTPVersion:  ExpressibleByArgument {}
extension CellImages.Format: ExpressibleByArgument {}

/// The bench's network flags: a shared link (the default) or independent latencies.
struct NetworkOptions: ParsableArguments {
    /// The two models.
    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case shared, independent
    }

    @Option(help: "shared: every transfer shares one link of the profile's capacity, payloads 60 KB median, 600 KB p99 (the default); independent: each load's latency drawn on its own, a fixed 50 KB payload (the model before the shared link).")
    var network: Kind = .shared

    @Option(help: ArgumentHelp("The shared link's HTTP version: 1.1 (at most 6 requests at once) or 2 (any number).", valueName: "version"))
    var http: HTTPVersion = .http2

    @Option(help: ArgumentHelp("The shared link's capacity in Mbit/s, above 0 (default: the profile's: wifi 50, lte 10, emerging 1).", valueName: "Mbit/s"))
    var linkMbps: Double?

    @Option(help: ArgumentHelp("How the transfers running at once share the link: fair (equally) or priority (the most urgent first, as a server honouring HTTP priorities, RFC 9218, does).", valueName: "sharing"))
    var linkSharing: LinkSharing = .fair

    /// How the transfers running at once share the link.
    enum LinkSharing: String, ExpressibleByArgument, CaseIterable {
        case fair, priority
    }

    @Flag(inversion: .prefixedNo, help: "Whether a stopped transfer's bytes are kept and the item's next load moves only the rest, as HTTPLoader does with range requests (default: on).")
    var resume = true

    @Option(help: ArgumentHelp("The link's behaviour: classic (a fluid fair-share pipe after an independent round trip; the default) or phone (payloads follow the cell, queueing, slow start, radio wake-up and bursty round trips all on; each flag below can turn one off or on).", valueName: "model"))
    var link: LinkModel = .classic

    /// The link's behaviour.
    enum LinkModel: String, ExpressibleByArgument, CaseIterable {
        case classic, phone
    }

    @Option(help: ArgumentHelp("Payload sizes: standard (60 KB median, 600 KB p99, every cell alike; classic's default), thumbnail (the cell's image at 3x: a 66 pt row's 198 px square, a grid item's rectangle; phone's default) or feed-photo (a full-width square photo at 3x).", valueName: "sizes"))
    var payloads: Payloads?

    /// Payload sizes by name.
    enum Payloads: String, ExpressibleByArgument, CaseIterable {
        case standard, thumbnail
        case feedPhoto = "feed-photo"
    }

    @Option(help: ArgumentHelp("The image format of cell payloads: jpeg (0.35 bytes per pixel; the default) or webp (0.25).", valueName: "format"))
    var imageFormat: CellImages.Format?

    @Flag(inversion: .prefixedNo, help: "Queueing: a round trip waits behind the bytes queued in the link's buffer (half a second of its capacity) (default: on with --link phone).")
    var queueing: Bool?

    @Flag(inversion: .prefixedNo, help: "Slow start: a transfer's congestion window starts at 10 segments and doubles per round trip (RFC 6928) (default: on with --link phone).")
    var slowStart: Bool?

    @Flag(inversion: .prefixedNo, help: "Radio wake-up: after an idle tail the next request waits for the radio (lte: 0.26 s after 11.6 s idle; emerging: 2 s after 17 s) (default: on with --link phone).")
    var radioWake: Bool?

    @Flag(inversion: .prefixedNo, help: "Bursty round trips: a good/bad Markov chain (10 s good, 2 s bad on average) makes slow round trips (4 x) come in runs (default: on with --link phone).")
    var burstyRtt: Bool?

    @Flag(inversion: .prefixedNo, help: "Whether the app knows each item's payload size (as a feed listing byte counts does), so the view plans each item with its own load time once the fetcher has measured the transfer rate (default: on).")
    var knownSizes = true

    /// The model the flags make for `profile`.
    /// - Throws: `ValidationError` naming the flag, the value and the rule broken.
    func model(profile: LatencyProfile) throws -> NetworkModel {
        if network == .independent {
            let switches = [("queueing", queueing), ("slow-start", slowStart), ("radio-wake", radioWake), ("bursty-rtt", burstyRtt)]
            let phoneFlags = [("--link \(link.rawValue)", link != .classic), ("--payloads", payloads != nil), ("--image-format", imageFormat != nil)]
                + switches.map { name, on in (on == false ? "--no-\(name)" : "--\(name)", on != nil) }
            for (flag, given) in [("--http", http != .http2), ("--link-mbps", linkMbps != nil), ("--no-resume", !resume), ("--link-sharing", linkSharing != .fair)] + phoneFlags where given {
                throw ValidationError("\(flag) applies only to --network shared; it cannot be combined with --network independent")
            }
            return .independent
        }
        var link = SharedLink(profile, http: http)
        if let linkMbps {
            guard linkMbps.isFinite, linkMbps > 0, linkMbps <= 100_000 else {
                throw ValidationError("--link-mbps must be a number above 0 and at most 100000; got \(linkMbps)")
            }
            link = try SharedLink(capacityBytesPerSecond: linkMbps * 1e6 / 8, http: http)
        }
        link.resumesStoppedTransfers = resume
        link.sharesByPriority = linkSharing == .priority
        try applyPhone(to: &link, profile: profile)
        return .shared(link)
    }

    /// Sets the link's payload sizes and phone effects from `--link` and the per-effect flags.
    /// - Throws: `ValidationError` when `--image-format` is given with standard payloads.
    private func applyPhone(to sharedLink: inout SharedLink, profile: LatencyProfile) throws {
        let phone = link == .phone
        let sizes = payloads ?? (phone ? .thumbnail : .standard)
        if let imageFormat, sizes == .standard {
            throw ValidationError("--image-format \(imageFormat.rawValue) applies only to cell payloads; use it with --payloads thumbnail or feed-photo (or --link phone)")
        }
        let format = imageFormat ?? .jpeg
        switch sizes {
        case .standard: break
        case .thumbnail: sharedLink = try SharedLink(capacityBytesPerSecond: sharedLink.capacityBytesPerSecond, http: http, sizes: .cell(CellImages(.thumbnail, format: format)))
        case .feedPhoto: sharedLink = try SharedLink(capacityBytesPerSecond: sharedLink.capacityBytesPerSecond, http: http, sizes: .cell(CellImages(.feedPhoto, format: format)))
        }
        sharedLink.resumesStoppedTransfers = resume
        sharedLink.sharesByPriority = linkSharing == .priority
        let all = PhoneEffects.phone(capacityBytesPerSecond: sharedLink.capacityBytesPerSecond)
        var effects = PhoneEffects()
        if queueing ?? phone { effects.queueing = all.queueing }
        if slowStart ?? phone { effects.slowStart = all.slowStart }
        if radioWake ?? phone { effects.radioWake = profile == .emerging ? .umts : .lte }
        if burstyRtt ?? phone { effects.burstyRoundTrips = all.burstyRoundTrips }
        sharedLink.phone = effects
    }
}
