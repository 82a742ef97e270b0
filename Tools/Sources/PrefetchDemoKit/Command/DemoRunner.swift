import ArgumentParser
import Foundation
import PrefetchSimulation
import PrefetchToolSupport

/// Runs `prefetch-demo`: chooses the mode from the options and the terminal, and runs it.
@MainActor
package enum DemoRunner {
    /// How a run is shown.
    package enum Mode: Equatable {
        case interactive
        case scriptedScreen(Script)
        case plain(Script)
    }

    /// The mode for `options` when standard input/output are (`interactive`) a terminal or not.
    package static func mode(for options: DemoOptions, interactive: Bool) -> Mode {
        if options.plain || options.json || !interactive { return .plain(options.script ?? .steady) }
        if let script = options.script { return .scriptedScreen(script) }
        return .interactive
    }

    /// What a run ends with: the figures, and for an interactive session what the keys changed.
    package struct Outcome {
        /// The meter's figures.
        package var result: SimulationResult
        /// The settings at the end (an interactive session's keys change the policy, prefetching and latency).
        package var settings: DemoSettings
        /// What the keys changed during the session, first value to last.
        package var changes: [String] = []
        /// The session's scroll trace with `--record`.
        package var recorder: TraceRecorder?
    }

    /// Runs the demo for `options`: interactive, scripted on screen, or plain; over the
    /// simulated network, or a real one with `--serve` or `--source`.
    package static func run(_ options: DemoOptions) async throws {
        var settings = try options.settings()
        let mode = mode(for: options, interactive: Terminal.isInteractive)
        if let record = options.record, mode != .interactive {
            throw DemoError("--record \(record) writes an interactive session, which needs standard input and output to be a terminal; here they are not, so the demo would run --script steady and record nothing")
        }
        if case .plain(let script) = mode { settings.script = script }
        if case .scriptedScreen(let script) = mode { settings.script = script }
        settings.duration = options.duration
        if options.isRemote { return try await runRemote(options, settings: settings, mode: mode) }
        let terminal = Terminal()
        let scene = try DemoScene(settings: settings)
        let outcome = try await run(mode, scene: scene, options: options, terminal: terminal)
        let summary = summary(outcome, backend: scene.backend, measured: mode == .interactive)
        if options.json { return print(try summary.json) }
        let title = switch mode {
        case .interactive: "prefetch-demo: interactive session, \(describe(outcome.settings))\(describe(changes: outcome.changes))"
        case .scriptedScreen(let script): "prefetch-demo: --script \(script.rawValue), \(describe(settings))"
        case .plain(let script): "prefetch-demo summary: --script \(script.rawValue), \(describe(settings))"
        }
        print(summary.text(title: title))
        try writeRecording(outcome, options: options, remote: false)
        if terminal.wasInterrupted { throw ExitCode(130) }
    }

    /// The summary of `outcome` over `backend`; with `measured`, the process's peak resident set
    /// beside the memory figure (not in a virtual-time script, whose summary repeats exactly).
    static func summary(_ outcome: Outcome, backend: any DemoBackend, network: NetworkFigures? = nil, measured: Bool) -> DemoSummary {
        var summary = DemoSummary(result: outcome.result, network: network)
        summary.memoryCost = backend.memoryCost
        summary.lowData = outcome.settings.lowData
        summary.previews = outcome.settings.previewsText
        if measured { summary.processPeakBytes = processPeakResidentBytes() }
        return summary
    }

    /// A one-line description of the settings.
    package static func describe(_ settings: DemoSettings) -> String {
        "\(settings.layout.rawValue), policy \(settings.policy.name), prefetching \(settings.prefetching ? "on" : "off"), latency \(settings.latency), seed \(settings.seed)"
            + describeBudgets(settings) + (settings.previewsText.map { ", previews \($0)" } ?? "")
    }

    /// ` (changed during the session: prefetching on → off)`, or nothing.
    package static func describe(changes: [String]) -> String {
        changes.isEmpty ? "" : " (changed during the session: \(changes.joined(separator: ", ")))"
    }

    /// `, low data, memory budget 8 MiB`, or nothing under the defaults.
    package static func describeBudgets(_ settings: DemoSettings) -> String {
        (settings.lowData ? ", low data" : "") + (settings.memoryBudgetBytes.map { ", memory budget \($0 >> 20) MiB" } ?? "")
    }

    /// Runs `mode` on `scene`: the interactive app, the script drawn on the terminal (a virtual-time
    /// run paced to the wall clock), or the script with a progress line per second when `progress` is on.
    private static func run(_ mode: Mode, scene: DemoScene, options: DemoOptions, terminal: Terminal) async throws -> Outcome {
        let renderer = ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment())
        switch mode {
        case .interactive:
            let session = try await InteractiveRun(settings: scene.settings, backend: scene.backend, terminal: terminal, renderer: renderer,
                                                   record: options.record.map { URL(fileURLWithPath: $0) }).run()
            return Outcome(result: session.result, settings: session.settings, changes: session.changes, recorder: session.recorder)
        case .scriptedScreen(let script):
            let painter = ScreenPainter(terminal: terminal, renderer: renderer)
            let virtual = scene.backend is SimulatedBackend
            let title = ScreenPainter.title(scene.settings, policy: scene.settings.policy.name, prefetching: scene.settings.prefetching,
                                            data: scene.backend.label, mode: "script \(script.rawValue)\(virtual ? "" : ", real time")")
            let clock = ContinuousClock()
            let start = clock.now
            terminal.enter()
            let sources = virtual ? terminal.installSignalHandlers() : []
            defer {
                for source in sources { source.cancel() }
                terminal.restore()
            }
            let result = try await scene.play { frame in
                if terminal.wasInterrupted || Key.parse(terminal.readAvailable()).contains(.quit) { return false }
                // Draw every other frame; a virtual-time run is paced to real time.
                guard frame.index % 2 == 0 else { return true }
                let time = String(format: "t=%.1fs of --script %@", frame.time, script.rawValue)
                painter.paint(scene, title: title, footer: virtual ? "simulated \(time)  q quits" : "\(time) from the server  q quits")
                if virtual { try await clock.sleep(until: start + .nanoseconds(Int64(frame.time * 1e9))) }
                return true
            }
            return Outcome(result: result, settings: scene.settings)
        case .plain:
            let result = try await runPlain(scene, progress: !options.json, terminal: terminal) { print($0) }
            return Outcome(result: result, settings: scene.settings)
        }
    }

    // MARK: --record

    /// Writes an interactive session's scroll trace to `--record`'s file and says where it went,
    /// how to replay it, and why a replay's numbers differ from the session's. Called after the
    /// summary, so a failure to write never loses it.
    static func writeRecording(_ outcome: Outcome, options: DemoOptions, remote: Bool) throws {
        guard let recorder = outcome.recorder, let path = options.record else { return }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        try recorder.write(to: url)
        print("")
        print(recordingNote(path: url.path, options: options, settings: outcome.settings, remote: remote).joined(separator: "\n"))
    }

    /// Where the trace went, the command that replays it, and why a replay's numbers differ.
    package static func recordingNote(path: String, options: DemoOptions, settings: DemoSettings, remote: Bool) -> [String] {
        let replay = "swift run --package-path Tools prefetch-bench run --trace \(shellQuoted(path))"
        let demoNetwork = remote
            ? "the demo's real server"
            : settings.previewsText.map { "the demo's simulated network with previews (\($0), latency \(settings.latency))" }
                ?? "the demo's simulated network (each load's own latency, \(settings.latency), no payload)"
        var lines = [
            "prefetch-demo: wrote the session's scroll trace to \(path)",
            "  replay it (from the repository root): \(replay)",
            "  a replay's numbers differ from this session's: the bench loads over its shared 10 Mbit/s link (lte latency, 60 KB median payloads)"
                + (remote || settings.previewsText == nil ? "" : " without previews") + ", not over \(demoNetwork)",
        ]
        if !remote {
            lines.append("  closer to this session: \(replay) \(benchNetworkFlags(options, settings: settings).joined(separator: " "))")
        }
        return lines
    }

    /// The bench's flags for the demo's simulated network: independent latencies, the demo's
    /// latency flags (a fixed 300 ms unless given), the list's cap of 4; with previews, the
    /// bench's own shared link (its default, as the demo's), the latency flags given and the
    /// preview flags.
    static func benchNetworkFlags(_ options: DemoOptions, settings: DemoSettings) -> [String] {
        let l = options.latency
        var flags = options.previews.isEnabled ? [] : ["--network", "independent"]
        let given: [(String, String?)] = [
            ("--latency-profile", l.latencyProfile?.rawValue), ("--latency-ms", l.latencyMs.map(LatencyOptions.format)),
            ("--latency-fixed-ms", l.latencyFixedMs.map(LatencyOptions.format)), ("--latency-median-ms", l.latencyMedianMs.map(LatencyOptions.format)),
            ("--latency-p99-ms", l.latencyP99Ms.map(LatencyOptions.format)), ("--failure-rate", l.failureRate.map(LatencyOptions.format)),
        ]
        let latency = given.compactMap { flag, value in value.map { [flag, $0] } }.flatMap { $0 }
        if options.previews.isEnabled {
            let p = options.previews
            flags += latency + ["--previews", p.previews.rawValue]
            if let share = p.previewShare { flags += ["--preview-share", LatencyOptions.format(share)] }
            if let within = p.previewFullWithinMs { flags += ["--preview-full-within-ms", LatencyOptions.format(within)] }
            if let slots = p.previewSlots { flags += ["--preview-slots", String(slots)] }
        } else {
            flags += latency.isEmpty ? ["--latency-fixed-ms", "300"] : latency
        }
        if settings.layout == .list { flags += ["--cap", "4"] }
        return flags
    }

    /// `path` as one shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%")
        if !path.isEmpty, path.unicodeScalars.allSatisfy(safe.contains) { return path }
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Plays the scene's script with a progress line per second when `progress` is on.
    package static func runPlain(
        _ scene: DemoScene, progress: Bool, terminal: Terminal? = nil, output: (String) -> Void
    ) async throws -> SimulationResult {
        try await scene.play { frame in
            if terminal?.wasInterrupted == true { return false }
            if progress, frame.isWholeSecond { output(progressLine(scene, time: frame.time)) }
            return true
        }
    }

    /// One progress line: time, offset, visible items, loads, cache and the ready rate so far.
    package static func progressLine(_ scene: DemoScene, time: Double) -> String {
        let s = scene.status
        let visible = s.visible.map { "#\($0.lowerBound + 1)-#\($0.upperBound + 1)" } ?? "none"
        let line = String(format: "t=%5.1fs  offset %6.0f pt  v %+5.0f pt/s  visible %@  in flight %d  queued %d  cached %d  ready %@ of %d  cancels %d  %@",
                          time, s.offset, s.velocity, visible, s.inFlight, s.queued, s.cached,
                          formatPercent(s.displayReadyRate), s.appearances, s.loadsCancelled, formatMemory(s))
            + (s.previewsOnScreen.map { "  previews on screen \($0)" } ?? "")
        return s.wire.map { "\(line)  \($0.text)" } ?? line
    }

    // MARK: A real network

    /// Runs the demo over a server: starts `prefetch-server` first for `--serve`, opens the
    /// source and the disk cache, runs the mode, and on every way out (the end, an error,
    /// Ctrl-C or SIGTERM) closes the source and stops the server before returning.
    private static func runRemote(_ options: DemoOptions, settings: DemoSettings, mode: Mode) async throws {
        let terminal = Terminal()
        // Signals become a flag from here on, so a Ctrl-C always goes through the clean-up below.
        let signalSources = terminal.installSignalHandlers()
        defer { for source in signalSources { source.cancel() } }
        var server: ServerProcess?
        // --server-restart-after: kills the server mid-run and starts it again (the fault soak by hand).
        var restarter: Task<Void, any Error>?
        defer { restarter?.cancel() }
        let summary: DemoSummary
        let outcome: Outcome
        do {
            let baseURL: URL
            if options.serve {
                let started = try await ServerProcess.start(arguments: options.serverArguments, shouldStop: { terminal.wasInterrupted })
                server = started
                standardError("prefetch-demo: started prefetch-server (pid \(started.pid)) \(options.serverArguments.joined(separator: " ")), listening on \(started.url.absoluteString)")
                baseURL = started.url
                restarter = options.serverRestartAfter.map { after in
                    Task {
                        try await ContinuousClock().sleep(for: .seconds(after))
                        try await started.restart()
                        standardError("prefetch-demo: killed prefetch-server and started it again (pid \(started.pid)) on \(started.url.absoluteString)")
                    }
                }
            } else {
                baseURL = try DemoOptions.sourceURL(options.source ?? "")
            }
            let remote = try await ServerBackend.open(
                baseURL: baseURL, diskCache: options.diskCacheURL, cold: options.cold, settings: settings,
                serverBandwidth: options.serve ? options.serverBandwidth : nil, shouldStop: { terminal.wasInterrupted })
            do {
                outcome = try await run(mode, scene: DemoScene(settings: settings, backend: remote), options: options, terminal: terminal)
                summary = Self.summary(outcome, backend: remote, network: await remote.networkFigures(), measured: true)
            } catch {
                await remote.close()
                throw error
            }
            await remote.close()
        } catch {
            terminal.restore()
            restarter?.cancel()
            _ = await restarter?.result
            await server?.terminate()
            if error is CancellationError, terminal.wasInterrupted { throw ExitCode(130) }
            throw error
        }
        restarter?.cancel()
        _ = await restarter?.result
        await server?.terminate()
        if options.json {
            print(try summary.json)
            return
        }
        switch mode {
        case .plain(let script), .scriptedScreen(let script):
            let title = describeRemote(settings, options: options, cold: options.cold)
            print(summary.text(title: "prefetch-demo summary: --script \(script.rawValue) in real time, \(title)"))
        case .interactive:
            let title = describeRemote(outcome.settings, options: options, cold: options.cold) + describe(changes: outcome.changes)
            print(summary.text(title: "prefetch-demo: interactive session, \(title)"))
        }
        try writeRecording(outcome, options: options, remote: true)
        if terminal.wasInterrupted { throw ExitCode(130) }
    }

    /// A one-line description of a run over a server.
    package static func describeRemote(_ settings: DemoSettings, options: DemoOptions, cold: Bool) -> String {
        let source = options.serve ? "--serve \(options.serverArguments.joined(separator: " "))" : "--source \(options.source ?? "")"
        return "\(settings.layout.rawValue), policy \(settings.policy.name), prefetching \(settings.prefetching ? "on" : "off"), \(source), disk cache \(cold ? "cold" : "as found")"
            + describeBudgets(settings) + (settings.previewsText.map { ", previews \($0)" } ?? "")
    }

    private static func standardError(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }
}
