import ArgumentParser
import Foundation
import PrefetchSimulation

/// Runs `prefetch-demo`: chooses the mode from the options and the terminal, and runs it.
@MainActor
public enum DemoRunner {
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

    /// Runs the demo for `options`: interactive, scripted on screen, or plain; over the
    /// simulated network, or a real one with `--serve` or `--source`.
    public static func run(_ options: DemoOptions) async throws {
        if options.isRemote { return try await runRemote(options) }
        let settings = try options.settings()
        let terminal = Terminal()
        switch mode(for: options, interactive: Terminal.isInteractive) {
        case .interactive:
            let run = try InteractiveRun(settings: settings, backend: SimulatedBackend(settings: settings), terminal: terminal,
                                         renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()),
                                         duration: options.duration, record: options.record.map { URL(fileURLWithPath: $0) })
            let summary = try await run.run()
            print(summary.text(title: "prefetch-demo: interactive session, \(describe(settings))"))
            if terminal.wasInterrupted { throw ExitCode(130) }
        case .scriptedScreen(let script):
            let summary = try await runScriptedScreen(script, settings: settings, duration: options.duration, terminal: terminal)
            print(summary.text(title: "prefetch-demo: --script \(script.rawValue), \(describe(settings))"))
            if terminal.wasInterrupted { throw ExitCode(130) }
        case .plain(let script):
            let summary = try await runPlain(script, settings: settings, duration: options.duration, progress: !options.json) { print($0) }
            if options.json {
                print(summary.json)
            } else {
                print(summary.text(title: "prefetch-demo summary: --script \(script.rawValue), \(describe(settings))"))
            }
        }
    }

    /// A one-line description of the settings.
    package static func describe(_ settings: DemoSettings) -> String {
        "\(settings.layout.rawValue), policy \(settings.policy.name), prefetching \(settings.prefetching ? "on" : "off"), latency \(settings.latency), seed \(settings.seed)"
    }

    /// Runs `script` on virtual time, with a progress line per simulated second when `progress` is on.
    package static func runPlain(
        _ script: Script, settings: DemoSettings, duration: Double?, progress: Bool, output: (String) -> Void
    ) async throws -> DemoSummary {
        let run = try ScriptedRun(settings: settings, script: script, duration: duration)
        return try await run.run { frame in
            if progress, frame.isWholeSecond { output(progressLine(run.scene, time: frame.time)) }
            return true
        }
    }

    /// One progress line: time, offset, visible items, loads, cache and the ready rate so far.
    package static func progressLine(_ scene: DemoScene, time: Double) -> String {
        let s = scene.status
        let visible = s.visible.map { "#\($0.lowerBound + 1)-#\($0.upperBound + 1)" } ?? "none"
        return String(format: "t=%5.1fs  offset %6.0f pt  v %+5.0f pt/s  visible %@  in flight %d  queued %d  cached %d  ready %@ of %d  cancels %d",
                      time, s.offset, s.velocity, visible, s.inFlight, s.queued, s.cached,
                      formatPercent(s.displayReadyRate), s.appearances, s.loadsCancelled)
    }

    // MARK: A real network

    /// Runs the demo over a server: starts `prefetch-server` first for `--serve`, opens the
    /// source and the disk cache, runs the mode, and on every way out (the end, an error,
    /// Ctrl-C or SIGTERM) closes the source and stops the server before returning.
    private static func runRemote(_ options: DemoOptions) async throws {
        let settings = try options.settings()
        let terminal = Terminal()
        let mode = mode(for: options, interactive: Terminal.isInteractive)
        // Signals become a flag from here on, so a Ctrl-C always goes through the clean-up below.
        let signalSources = terminal.installSignalHandlers()
        defer { for source in signalSources { source.cancel() } }
        var server: ServerProcess?
        // --server-restart-after: kills the server mid-run and starts it again (the fault soak by hand).
        var restarter: Task<Void, any Error>?
        defer { restarter?.cancel() }
        let summary: DemoSummary
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
                shouldStop: { terminal.wasInterrupted })
            do {
                summary = try await runRemoteMode(mode, remote: remote, settings: settings, options: options, terminal: terminal)
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
        let title = describeRemote(settings, options: options, cold: options.cold)
        if options.json {
            print(summary.json)
            return
        }
        switch mode {
        case .plain(let script), .scriptedScreen(let script):
            print(summary.text(title: "prefetch-demo summary: --script \(script.rawValue) in real time, \(title)"))
        case .interactive:
            print(summary.text(title: "prefetch-demo: interactive session, \(title)"))
        }
        if terminal.wasInterrupted { throw ExitCode(130) }
    }

    private static func runRemoteMode(
        _ mode: Mode, remote: ServerBackend, settings: DemoSettings, options: DemoOptions, terminal: Terminal
    ) async throws -> DemoSummary {
        switch mode {
        case .interactive:
            let run = try InteractiveRun(settings: settings, backend: remote, terminal: terminal,
                                         renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()),
                                         duration: options.duration, record: options.record.map { URL(fileURLWithPath: $0) })
            return try await run.run()
        case .scriptedScreen(let script):
            let scene = try DemoScene(settings: settings, backend: remote)
            let painter = ScreenPainter(terminal: terminal, renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()))
            let title = ScreenPainter.title(settings, prefetching: settings.prefetching, data: remote.label,
                                            mode: "script \(script.rawValue), real time")
            terminal.enter()
            defer { terminal.restore() }
            var painted = 0
            return try await scene.play(script, duration: options.duration) { frame in
                if terminal.wasInterrupted || Key.parse(terminal.readAvailable()).contains(.quit) { return false }
                painted += 1
                guard painted % 2 == 0 else { return true }
                painter.paint(scene, title: title, footer: String(format: "t=%.1fs of --script %@ from the server   q quits", frame.time, script.rawValue))
                return true
            }
        case .plain:
            let script = options.script ?? .steady
            let scene = try DemoScene(settings: settings, backend: remote)
            let progress = !options.json
            return try await scene.play(script, duration: options.duration) { frame in
                if terminal.wasInterrupted { return false }
                if progress, frame.isWholeSecond { print(progressLine(scene, time: frame.time)) }
                return true
            }
        }
    }

    /// A one-line description of a run over a server.
    package static func describeRemote(_ settings: DemoSettings, options: DemoOptions, cold: Bool) -> String {
        let source = options.serve ? "--serve \(options.serverArguments.joined(separator: " "))" : "--source \(options.source ?? "")"
        return "\(settings.layout.rawValue), policy \(settings.policy.name), prefetching \(settings.prefetching ? "on" : "off"), \(source), disk cache \(cold ? "cold" : "as found")"
    }

    private static func standardError(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }

    private static func runScriptedScreen(_ script: Script, settings: DemoSettings, duration: Double?, terminal: Terminal) async throws -> DemoSummary {
        let run = try ScriptedRun(settings: settings, script: script, duration: duration)
        let painter = ScreenPainter(terminal: terminal, renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()))
        let title = ScreenPainter.title(settings, prefetching: settings.prefetching, data: run.backend.label, mode: "script \(script.rawValue)")
        let clock = ContinuousClock()
        let start = clock.now
        terminal.enter()
        let sources = terminal.installSignalHandlers()
        defer {
            for source in sources { source.cancel() }
            terminal.restore()
        }
        return try await run.run { frame in
            if terminal.wasInterrupted || Key.parse(terminal.readAvailable()).contains(.quit) { return false }
            // Draw every other frame, paced to real time.
            guard Int((frame.time * ScriptedRun.frameRate).rounded()) % 2 == 0 else { return true }
            painter.paint(run.scene, title: title, footer: String(format: "simulated t=%.1fs of --script %@   q quits", frame.time, script.rawValue))
            try await clock.sleep(until: start + .seconds(exactly: frame.time))
            return true
        }
    }
}
