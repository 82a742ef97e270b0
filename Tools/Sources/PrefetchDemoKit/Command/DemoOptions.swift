import ArgumentParser
import Foundation
import PrefetchDiskCache
import PrefetchHTTP
import PrefetchKit
import PrefetchSimulation
import PrefetchTesting
import PrefetchToolSupport

extension DemoLayout: ExpressibleByArgument {}
extension Script: ExpressibleByArgument {}

/// The accepted ranges of the numeric options, used by the parser, the help and `validate()`.
enum Limits {
    static let duration = 0.1...600.0
    static let serverItems = 1...10_000_000

    static func describe(_ range: ClosedRange<Double>) -> String {
        "\(LatencyOptions.format(range.lowerBound)) to \(LatencyOptions.format(range.upperBound))"
    }

    /// Parses a number for `flag`, naming the accepted range when it is not one.
    static func number(_ text: String, _ flag: String, _ range: ClosedRange<Double>, unit: String) throws -> Double {
        guard let value = Double(text), value.isFinite else {
            throw ValidationError("\(flag) takes a number from \(describe(range)) \(unit); '\(text)' is not a number")
        }
        return value
    }
}

/// The options of `prefetch-demo`, each checked by ``validate()`` with a message naming the
/// option and its accepted range.
public struct DemoOptions: ParsableArguments, Sendable {
    /// Grid or list.
    @Option(help: "grid: the two-column collection view of Apple's sample; list: the tutorial's table view (title + thumbnail, 4 loads at most).")
    public var layout: DemoLayout = .grid

    /// A built-in scroll scenario to run without input.
    @Option(help: ArgumentHelp("Run a built-in scroll scenario to its end, on virtual time (repeatable with --seed); in real time with --serve or --source.", valueName: "scenario"))
    public var script: Script?

    /// The longest a run lasts, in (simulated) seconds.
    @Option(help: ArgumentHelp("Stop after this many seconds (\(Limits.describe(Limits.duration))); simulated seconds in scripted runs over the simulated network, wall-clock seconds with --serve or --source.", valueName: "seconds"),
            transform: { try Limits.number($0, "--duration", Limits.duration, unit: "seconds") })
    public var duration: Double?

    /// No escape codes: progress lines and a summary.
    @Flag(help: "Print progress lines and a summary instead of drawing the screen (the default when stdout is not a terminal).")
    public var plain = false

    /// Print the summary as one JSON object.
    @Flag(help: "Print only the summary, as one JSON object (implies --plain).")
    public var json = false

    /// Turn prefetching off: nothing is asked for ahead of display.
    @Flag(name: .customLong("no-prefetch"), help: ArgumentHelp(
        "Turn prefetching off (isPrefetchingEnabled = false): the view prepares no cell ahead and the app's prefetch controller requests nothing, so each cell's load starts only when the cell is configured to show. Unlike --policy none (see --policy)."))
    public var noPrefetch = false

    /// Seeds the identifiers and the network's delays.
    @Option(help: ArgumentHelp("Seed for the identifiers and the simulated delays (0 to \(UInt64.max)).", valueName: "n"),
            transform: { text in
                guard let value = UInt64(text) else {
                    throw ValidationError("--seed takes a whole number from 0 to \(UInt64.max); '\(text)' is not one")
                }
                return value
            })
    public var seed: UInt64 = 1

    /// The simulated network's latency (a fixed 300 ms, ``DemoSettings/latency``, or with previews
    /// the lte profile's, unless the flags say otherwise).
    @OptionGroup(title: "The simulated network (a fixed 300 ms, or with --previews the lte profile, unless these say otherwise)")
    public var latency: LatencyOptions

    /// The prefetch policy's name, from `PrefetchPolicies.names`.
    @Option(help: ArgumentHelp(
        "The prefetch policy: \(PrefetchPolicies.names.joined(separator: ", ")); c cycles them in the interactive screen. none plans no region ahead, but prefetching stays on: the controller still requests the cells on screen each frame (holding one that just left for a moment), and the view still prepares cells just ahead of the viewport, whose loads start early; so a fling's cells are sometimes ready under none, never with --no-prefetch, which turns both off.",
        valueName: "name"),
            transform: { name in
                do {
                    return try PrefetchPolicies.named(name).name
                } catch let error as PrefetchError {
                    throw ValidationError("--policy: \(error.message)")
                }
            })
    public var policy: String = PrefetchPolicies.adaptive.name

    /// The app binding that drives the prefetching: UIKit's (the default) or a SwiftUI list's.
    @Option(help: ArgumentHelp(
        "The app binding that drives the prefetching: uikit (a ScrollViewPrefetcher hearing the view's delegate callbacks; the default) or swiftui (a ListPrefetcher fed what onScrollGeometryChange and onScrollPhaseChange report).",
        valueName: "name"),
            transform: { name in
                do { return try Toolkit(parsing: name) } catch {
                    throw ValidationError("--toolkit '\(name)' is unknown; use \(Toolkit.allCases.map(\.rawValue).joined(separator: " or "))")
                }
            })
    public var toolkit: Toolkit = .uikit

    /// Previews first (`--previews`, none by default): with previews the simulated network is one
    /// shared link with real payload sizes (``DemoSettings/simulationConfiguration``), so a preview
    /// arrives before the full value; the command's discussion says what the link is.
    @OptionGroup(title: "Previews (none unless these say otherwise)")
    public var previews: PreviewOptions

    // MARK: Budgets

    /// Low Data Mode: prefetch only a fling's landing zone, or the next screen at rest.
    @Flag(name: .customLong("low-data"), help: "Prefetch as in Low Data Mode: only where a fling comes to rest, or the next screen at rest; visible cells load as ever.")
    public var lowData = false

    /// The fetcher's memory budget, in MiB.
    @Option(name: .customLong("memory-budget-mb"), help: ArgumentHelp(
        "The most memory the fetcher's cache and loads in flight may hold, in MiB (1 to 65536), each value costing 1 MiB decoded; the screen shows the memory held and its peak. The figures are a model (1 MiB a value over the simulated network, or under a budget), not the process's memory.",
        valueName: "n"))
    public var memoryBudgetMB: Int?

    // MARK: A real network

    /// A server to load from instead of the simulated network.
    @Option(help: ArgumentHelp(
        "Load from this server instead of the simulated network: the model list page by page from <url>/items, each thumbnail from its item's thumbnailURL, in real time (an absolute http or https URL).",
        valueName: "url"))
    public var source: String?

    /// Start `prefetch-server` as a child process and load from it.
    @Flag(help: "Start prefetch-server (built next to prefetch-demo) on a free loopback port as a child process, load from it as with --source, and stop it when the demo ends.")
    public var serve = false

    /// The started server's latency (the median when log-normal).
    @Option(name: .customLong("server-latency-ms"), help: ArgumentHelp(
        "With --serve: the server's delay per response in ms (0 to 60000); the median when --server-latency-p99-ms is given.", valueName: "ms"))
    public var serverLatencyMs: Double?

    /// The started server's 99th-percentile latency.
    @Option(name: .customLong("server-latency-p99-ms"), help: ArgumentHelp(
        "With --serve: make the server's delay log-normal with this 99th percentile in ms (from --server-latency-ms to 60000).", valueName: "ms"))
    public var serverLatencyP99Ms: Double?

    /// The started server's bandwidth, shared by all its responses.
    @Option(name: .customLong("server-bandwidth"), help: ArgumentHelp(
        "With --serve: the most bytes per second the server sends in all, shared by its responses as one link is (default: unlimited): \(BandwidthRate.rule).",
        valueName: "rate"), transform: { try BandwidthRate.parse($0) })
    public var serverBandwidth: BandwidthRate?

    /// The started server shares its bandwidth alike among all bodies, ignoring their `Priority` headers.
    @Flag(name: .customLong("server-ignore-priority"),
          help: "With --serve --server-bandwidth: the server shares its link alike among all bodies, ignoring the requests' Priority headers (RFC 9218); by default visible cells' loads go first.")
    public var serverIgnorePriority = false

    /// The started server's item count.
    @Option(name: .customLong("items"),
            help: ArgumentHelp("With --serve: how many items the server's feed has (\(Limits.serverItems.lowerBound) to \(Limits.serverItems.upperBound), default 100000).", valueName: "n"),
            transform: { text in
                guard let value = Int(text) else {
                    throw ValidationError("--items takes a whole number from \(Limits.serverItems.lowerBound) to \(Limits.serverItems.upperBound); '\(text)' is not one")
                }
                return value
            })
    public var items: Int?

    /// The disk cache's file.
    @Option(name: .customLong("disk-cache"),
            help: ArgumentHelp("With --serve or --source: the disk cache's SQLite file (default \(DemoOptions.defaultDiskCache.path)).", valueName: "path"))
    public var diskCache: String?

    /// Empty the disk cache before the run.
    @Flag(help: "With --serve or --source: empty the disk cache first, so every thumbnail comes from the network.")
    public var cold = false

    /// Inject the fault soak's faults in the started server.
    @Flag(name: .customLong("server-faults"),
          help: "With --serve: inject the fault soak's faults: latency spikes (median 15 ms, p99 1500 ms, unless --server-latency-ms is given), 8% 503s, 5% resets mid-body, 10% slow bodies, 256 KiB/s bodies.")
    public var serverFaults = false

    /// Kill the started server and start it again on the same port after this many seconds.
    @Option(name: .customLong("server-restart-after"),
            help: ArgumentHelp("With --serve: kill the server (SIGKILL, as in a crash) after this many seconds and start it again on the same port (0.1 to 3600).", valueName: "s"),
            transform: { try Limits.number($0, "--server-restart-after", 0.1...3_600, unit: "seconds") })
    public var serverRestartAfter: Double?

    /// Write the interactive session as a scroll trace to this file (`prefetch-bench run --trace FILE` replays it).
    @Option(help: ArgumentHelp(
        "Write the interactive session as a scroll trace (with phases) to this file, in an existing folder you can write to (checked before the run); after the summary the demo prints the prefetch-bench run --trace command that replays it.",
        valueName: "file"))
    public var record: String?

    /// Creates the defaults.
    public init() {}

    /// Checks every value against its range, naming the option and the range.
    public func validate() throws {
        if let duration, !Limits.duration.contains(duration) {
            throw ValidationError("--duration must be from \(Limits.describe(Limits.duration)) seconds; got \(LatencyOptions.format(duration))")
        }
        if let record {
            if script != nil || plain || json {
                throw ValidationError("--record \(record) writes an interactive session; it cannot be combined with --script, --plain or --json")
            }
            try Self.checkWritableFile(record, flag: "--record")
        }
        if let memoryBudgetMB, !(1...65_536).contains(memoryBudgetMB) {
            throw ValidationError("--memory-budget-mb must be from 1 to 65536 MiB; got \(memoryBudgetMB)")
        }
        try validateNetwork()
        if !isRemote { _ = try latency.model(default: DemoSettings.latency(previews: previews.isEnabled)) }
    }

    /// Checks the real-network flags: `--serve` or `--source`, never both, and the flags that
    /// only apply to one of them.
    private func validateNetwork() throws {
        if serve, let source {
            throw ValidationError("--serve and --source cannot be used together: --serve starts a local server and loads from it; got --source \(source)")
        }
        if let source { _ = try Self.sourceURL(source) }
        if !serve {
            for (flag, given) in [("--server-latency-ms", serverLatencyMs != nil), ("--server-latency-p99-ms", serverLatencyP99Ms != nil), ("--items", items != nil),
                                  ("--server-faults", serverFaults), ("--server-restart-after", serverRestartAfter != nil),
                                  ("--server-bandwidth", serverBandwidth != nil), ("--server-ignore-priority", serverIgnorePriority)] where given {
                throw ValidationError("\(flag) only applies with --serve (it configures the server --serve starts)")
            }
        }
        if !isRemote {
            if diskCache != nil { throw ValidationError("--disk-cache only applies with --serve or --source (the simulated network has no disk cache)") }
            if cold { throw ValidationError("--cold only applies with --serve or --source (the simulated network has no disk cache)") }
            return
        }
        for flag in previews.given {
            throw ValidationError("\(flag) applies only to the simulated network; it cannot be combined with --serve or --source (the server backend loads each thumbnail whole, without previews)")
        }
        for flag in latency.given {
            throw ValidationError("\(flag) sets the simulated network's delay and does not apply with --serve or --source; with --serve, use --server-latency-ms and --server-latency-p99-ms")
        }
        if serverIgnorePriority, serverBandwidth == nil {
            throw ValidationError("--server-ignore-priority only applies with --server-bandwidth (priority orders the bodies sharing the server's link)")
        }
        if let restart = serverRestartAfter, !(0.1...3_600).contains(restart) {
            throw ValidationError("--server-restart-after must be from 0.1 to 3600 seconds; got \(LatencyOptions.format(restart))")
        }
        if let items, !Limits.serverItems.contains(items) {
            throw ValidationError("--items must be from \(Limits.serverItems.lowerBound) to \(Limits.serverItems.upperBound); got \(items)")
        }
        // Checked as the server will check them, naming the demo's flags.
        _ = try LatencyOptions.parse(serverLatencyArguments).model(default: LatencyModel(.fixed(.zero)), prefix: "server-")
        if let diskCache {
            var isDirectory: ObjCBool = false
            if diskCache.isEmpty {
                throw ValidationError("--disk-cache takes the path of the cache's SQLite file; got an empty path")
            }
            if FileManager.default.fileExists(atPath: diskCache, isDirectory: &isDirectory), isDirectory.boolValue {
                throw ValidationError("--disk-cache takes the path of the cache's SQLite file; '\(diskCache)' is a directory")
            }
        }
    }

    /// Checks that `path` names a file that can be written: not empty, not a folder, in an
    /// existing folder that is writable (and, when the file exists, the file is writable), so
    /// that a run never ends with nowhere to write.
    ///
    /// - Throws: `ValidationError` naming `flag`, the path and the rule.
    static func checkWritableFile(_ path: String, flag: String) throws {
        let rule = "it takes the path of a file to write, in an existing folder you can write to"
        guard !path.isEmpty else { throw ValidationError("\(flag) got an empty path; \(rule)") }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent()
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ValidationError("\(flag) \(path): \(url.path) is a folder; \(rule)") }
            if !files.isWritableFile(atPath: url.path) { throw ValidationError("\(flag) \(path): \(url.path) exists and is not writable; \(rule)") }
            return
        }
        guard files.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
            throw ValidationError("\(flag) \(path): the folder \(folder.path) does not exist; \(rule)")
        }
        guard isDirectory.boolValue else { throw ValidationError("\(flag) \(path): \(folder.path) is not a folder; \(rule)") }
        guard files.isWritableFile(atPath: folder.path) else {
            throw ValidationError("\(flag) \(path): the folder \(folder.path) is not writable; \(rule)")
        }
    }

    /// Whether the run loads from a server (`--serve` or `--source`).
    public var isRemote: Bool { serve || source != nil }

    /// The disk cache used when `--disk-cache` is not given: `prefetch-demo.sqlite` in
    /// PrefetchDiskCache's default directory.
    public static var defaultDiskCache: URL { DiskCacheConfiguration(name: "prefetch-demo").fileURL }

    /// The disk cache's file for this run.
    public var diskCacheURL: URL {
        diskCache.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? Self.defaultDiskCache
    }

    /// Parses `--source`: an absolute http or https URL with a host.
    static func sourceURL(_ text: String) throws -> URL {
        do {
            return try HTTPLoader<URL>.url(text)
        } catch let error as HTTPLoaderError {
            throw ValidationError("--source must be an absolute http or https URL with a host; got '\(text)': \(error.message)")
        }
    }

    /// The arguments of `prefetch-server` for `--serve`, after `--port 0`.
    public var serverArguments: [String] {
        var arguments = ["--items", String(items ?? 100_000)] + serverLatencyArguments
        if let serverBandwidth { arguments += ["--server-bandwidth", String(serverBandwidth.bytesPerSecond)] }
        if serverIgnorePriority { arguments += ["--ignore-priority"] }
        if serverFaults {   // the soak's faults; its latency spikes unless --server-latency-ms is given
            arguments += FaultSoak.serverArguments.dropFirst(serverLatencyArguments.isEmpty ? 0 : 4)
        }
        return arguments
    }

    /// `--server-latency-ms` and `--server-latency-p99-ms` as the server's flags.
    private var serverLatencyArguments: [String] {
        [("--latency-ms", serverLatencyMs), ("--latency-p99-ms", serverLatencyP99Ms)].flatMap { flag, value in
            value.map { [flag, LatencyOptions.format($0)] } ?? []
        }
    }

    /// The run's settings.
    public func settings() throws -> DemoSettings {
        var settings = DemoSettings()
        settings.layout = layout
        settings.prefetching = !noPrefetch
        settings.policy = try PrefetchPolicies.named(policy)
        settings.toolkit = toolkit
        settings.seed = seed
        settings.latency = try latency.model(default: DemoSettings.latency(previews: previews.isEnabled))
        settings.previews = previews.source
        settings.previewPlan = try previews.plan()
        settings.previewSlots = previews.slots
        if let profile = latency.latencyProfile { settings.linkProfile = profile }
        settings.lowData = lowData
        settings.memoryBudgetBytes = memoryBudgetMB.map { $0 << 20 }
        return settings
    }
}
