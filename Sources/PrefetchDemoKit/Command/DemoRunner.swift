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

    /// Runs the demo for `options`: interactive, scripted on screen, or plain.
    public static func run(_ options: DemoOptions) async throws {
        let settings = try options.settings()
        let terminal = Terminal()
        switch mode(for: options, interactive: Terminal.isInteractive) {
        case .interactive:
            let run = try InteractiveRun(settings: settings, terminal: terminal,
                                         renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()),
                                         duration: options.duration)
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
        "\(settings.layout.rawValue), policy \(settings.policy.rawValue), prefetching \(settings.prefetching ? "on" : "off"), latency \(settings.latency), seed \(settings.seed)"
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

    private static func runScriptedScreen(_ script: Script, settings: DemoSettings, duration: Double?, terminal: Terminal) async throws -> DemoSummary {
        let run = try ScriptedRun(settings: settings, script: script, duration: duration)
        let painter = ScreenPainter(terminal: terminal, renderer: ScreenRenderer(colorMode: ScreenRenderer.colorModeFromEnvironment()))
        let title = ScreenPainter.title(settings, prefetching: settings.prefetching, latency: settings.latency, mode: "script \(script.rawValue)")
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
