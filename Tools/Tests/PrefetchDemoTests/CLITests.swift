import Foundation
import Testing

/// Runs the built `prefetch-demo` in plain mode (its stdout is a pipe) and checks what it prints.
///
/// Scripted runs are on virtual time, so every number here is exact and repeatable.
@Suite("prefetch-demo on the command line")
struct CLITests {
    /// The keys of `prefetch-bench`'s results: the demo prints the same result type.
    static let keys: Set<String> = [
        "scenario", "policy", "displayed", "displayReadyRate", "visibleWaitMeanMs", "visibleWaitP95Ms", "blankCellSeconds",
        "loadsStarted", "loadsCompleted", "loadsCancelled", "loadsWasted", "loadsWastedAtEnd", "bytesWasted", "bytesOnWire", "linkUtilisation", "loadsNeverShown",
        "settles", "settleMeanMs", "settleP95Ms", "peakInFlight", "peakMemoryBytes", "requestsPerSecond", "duration",
    ]

    @Test func prefetchingRaisesTheDisplayReadyRate() async throws {
        // Given the same seed, scenario and latency
        let arguments = ["--script", "steady", "--duration", "4", "--latency-ms", "80", "--seed", "7"]
        // When the demo runs with and without prefetching
        let with = try await DemoProcess.summary(arguments)
        let without = try await DemoProcess.summary(arguments + ["--no-prefetch"])
        // Then the same cells appear, and more of them are ready with prefetching
        #expect(with["displayed"] == without["displayed"])
        #expect(try #require(with["displayed"]) > 0)
        #expect(try #require(with["displayReadyRate"]) > #require(without["displayReadyRate"]))
        #expect(try #require(with["visibleWaitMeanMs"]) < #require(without["visibleWaitMeanMs"]))
        // Without prefetching nothing is loaded for an item that is never displayed
        #expect(without["loadsWasted"] == 0)
    }

    @Test(arguments: ["grid", "list"])
    func aSlowScrollWithPrefetchingNeverWaits(layout: String) async throws {
        // Given a steady scroll and a fast network
        let summary = try await DemoProcess.summary(["--layout", layout, "--script", "steady", "--duration", "3", "--latency-ms", "20"])
        // Then every cell that scrolled in was ready
        #expect(try #require(summary["displayed"]) > 10)
        #expect(summary["displayReadyRate"] == 1)
        #expect(summary["visibleWaitMeanMs"] == 0)
        #expect(summary["visibleWaitP95Ms"] == 0)
        #expect(try #require(summary["peakInFlight"]) <= (layout == "list" ? 4 : 6))
    }

    @Test(arguments: ["grid", "list"])
    func theSwiftUIToolkitPlaysTheScriptAndAnUnknownOneIsRefused(layout: String) async throws {
        // Given the same script and seed under each binding
        let arguments = ["--layout", layout, "--script", "fling", "--duration", "3", "--latency-ms", "150", "--seed", "3"]
        let plain = try await DemoProcess.summary(arguments)
        let uikit = try await DemoProcess.summary(arguments + ["--toolkit", "uikit"])
        let swiftui = try await DemoProcess.summary(arguments + ["--toolkit", "swiftui"])
        // Then UIKit is the default, and SwiftUI's binding shows the same cells with prefetching at work
        #expect(plain == uikit)
        #expect(swiftui["displayed"] == uikit["displayed"])
        #expect(try #require(swiftui["displayReadyRate"]) > 0)
        #expect(try #require(swiftui["loadsStarted"]) > #require(swiftui["displayed"]) / 2)
        let bad = try await DemoProcess.run(["--toolkit", "appkit", "--script", "fling"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--toolkit 'appkit' is unknown; use uikit or swiftui"), "\(bad.stderr)")
    }

    @Test func jsonIsOneObjectWithExactlyTheSummaryKeys() async throws {
        let output = try await DemoProcess.run(["--script", "fling", "--duration", "2", "--latency-ms", "150", "--latency-p99-ms", "900", "--json"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n")
        try #require(lines.count == 1, "expected one line, got: \(output.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(Set(object.keys) == Self.keys)
        for key in Self.keys.subtracting(["scenario", "policy"]) { #expect(object[key] is NSNumber, "\(key) is not a number") }
        #expect(object["scenario"] as? String == "fling" && object["policy"] as? String == "adaptive")
        #expect(!output.stdout.contains("\u{1B}"), "no escape codes in plain mode")
    }

    @Test func lowDataModeAndAMemoryBudgetShowInTheSummary() async throws {
        let arguments = ["--script", "fling", "--duration", "3", "--latency-ms", "150", "--policy", "adaptive"]
        let free = try await DemoProcess.summary(arguments)
        let restrained = try await DemoProcess.summary(arguments + ["--low-data", "--memory-budget-mb", "8"])
        #expect(try #require(free["peakMemoryBytes"]) > 8 * 1_048_576)
        #expect(try #require(restrained["peakMemoryBytes"]) <= 8 * 1_048_576)
        #expect(try #require(restrained["loadsStarted"]) < #require(free["loadsStarted"]))
        let plain = try await DemoProcess.run(arguments + ["--memory-budget-mb", "8", "--plain"])
        #expect(plain.stdout.contains("peak memory held") && plain.stdout.contains("mem ") && plain.stdout.contains("MiB modelled (peak"))
    }

    @Test func recordWithoutATerminalSaysItWouldRecordNothing() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-demo-\(UUID().uuidString).json").path
        let output = try await DemoProcess.run(["--record", path])
        #expect(output.status != 0)
        #expect(output.stdout.isEmpty, "no run: \(output.stdout)")
        #expect(output.stderr.contains("--record \(path) writes an interactive session, which needs standard input and output to be a terminal"))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func theSummarySaysTheMemoryFigureIsModelledAndBesideWhatTheProcessHeld() async throws {
        let output = try await DemoProcess.run(["--script", "steady", "--duration", "2", "--latency-ms", "100", "--plain"])
        #expect(output.status == 0)
        let line = try #require(output.stdout.split(separator: "\n").first { $0.contains("peak memory held") })
        #expect(line.contains("MiB modelled:") && line.contains("values × 1 MiB each (a decoded 512 × 512 RGBA bitmap)"), "\(line)")
        #expect(output.stdout.contains("cache and loads in flight; a model, not the process's memory"))
        // The progress lines say so too
        #expect(output.stdout.contains("MiB modelled (peak"))
    }

    @Test func lowDataSaysWhatItSavesOverTheSimulatedNetwork() async throws {
        let arguments = ["--script", "fling", "--duration", "4", "--latency-ms", "300"]
        let free = try await DemoProcess.summary(arguments)
        let low = try await DemoProcess.summary(arguments + ["--low-data"])
        // Low Data Mode reaches the app's prefetcher: fewer loads are wasted and fewer start
        #expect(try #require(low["loadsWasted"]) < #require(free["loadsWasted"]))
        #expect(try #require(low["loadsStarted"]) < #require(free["loadsStarted"]))
        // And the summary says why loads started change less than wasted ones
        let text = try await DemoProcess.run(arguments + ["--low-data", "--plain"])
        #expect(text.stdout.contains("low data             prefetches only where a fling rests, or the next screen at rest"))
        #expect(text.stdout.contains("every cell that"))
        let plain = try await DemoProcess.run(arguments + ["--plain"])
        #expect(!plain.stdout.contains("low data             "))
    }

    @Test func helpExplainsPolicyNoneAgainstNoPrefetchAndTheKeys() async throws {
        let output = try await DemoProcess.run(["--help"])
        #expect(output.status == 0)
        let help = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["--policy none and --no-prefetch differ", "still requests the cells on screen", "--no-prefetch turns both off",
                     "c moves to the next policy", "m sends a memory warning", "Memory figures are modelled",
                     "prefetch-bench run --trace"] {
            #expect(help.contains(text), "--help lacks \"\(text)\"")
        }
    }

    @Test func theSameSeedGivesTheSameRun() async throws {
        for script in ["fling", "reverse", "jump"] {
            let arguments = ["--script", script, "--duration", "3", "--latency-ms", "120", "--latency-p99-ms", "1200",
                             "--policy", "adaptive", "--seed", "42"]
            let first = try await DemoProcess.run(arguments + ["--plain"])
            let second = try await DemoProcess.run(arguments + ["--plain"])
            #expect(first.status == 0)
            #expect(first.stdout == second.stdout, "--script \(script) differed between runs")
        }
    }

    @Test func plainModePrintsProgressEverySimulatedSecondAndASummary() async throws {
        let output = try await DemoProcess.run(["--layout", "list", "--script", "reverse", "--duration", "3", "--latency-ms", "100"])
        #expect(output.status == 0)
        let progress = output.stdout.split(separator: "\n").filter { $0.hasPrefix("t=") }
        #expect(progress.map { $0.prefix(8) } == ["t=  1.0s", "t=  2.0s", "t=  3.0s"])
        for figure in ["cells displayed", "display-ready rate", "visible wait", "mean", "p95", "started", "cancelled", "wasted", "peak in flight"] {
            #expect(output.stdout.contains(figure), "the summary lacks \(figure)")
        }
        #expect(!output.stdout.contains("\u{1B}"))
    }

    @Test func withoutArgumentsOrATerminalItRunsTheSteadyScriptAndExits() async throws {
        let output = try await DemoProcess.run([])
        #expect(output.status == 0)
        #expect(output.stdout.contains("--script steady"))
        #expect(output.stdout.contains("display-ready rate"))
        #expect(output.stdout.contains("t= 15.0s"))
    }

    @Test(arguments: [
        (["--latency-ms", "70000"], ["--latency-ms must be from 0 to 60000 ms; got 70000"]),
        (["--latency-ms", "fast"], ["'fast'", "--latency-ms", "0 to 60000 ms"]),
        (["--latency-p99-ms", "100"], ["--latency-p99-ms must be from the median (300 ms) to 60000 ms; got 100"]),
        (["--latency-ms", "0", "--latency-p99-ms", "100"], ["--latency-ms must be above 0 and at most 60000 ms as the log-normal median; got 0"]),
        (["--latency-profile", "mars"], ["'mars'", "--latency-profile", "'wifi', 'lte' or 'emerging'"]),
        (["--failure-rate", "2"], ["--failure-rate (or --error-rate) must be from 0 to 1; got 2"]),
        (["--duration", "0"], ["--duration", "0.1 to 600"]),
        (["--duration", "1000"], ["--duration", "0.1 to 600"]),
        (["--seed", "minus"], ["--seed", "0 to 18446744073709551615"]),
        (["--policy", "eager"], ["--policy", "none", "uikitLike", "textureLike", "adaptive"]),
        (["--layout", "table"], ["--layout", "grid", "list"]),
        (["--script", "zigzag"], ["--script", "steady", "fling", "reverse", "jump"]),
        (["--speed", "3"], ["--speed"]),
        (["--memory-budget-mb", "0"], ["--memory-budget-mb must be from 1 to 65536 MiB; got 0"]),
        (["--record", "s.json", "--script", "steady"], ["--record s.json writes an interactive session", "--script, --plain or --json"]),
        // A trace that could not be written is refused before the run, not after it.
        (["--record", "/nonexistent/x.trace"], ["--record /nonexistent/x.trace: the folder /nonexistent does not exist",
                                                "a file to write, in an existing folder you can write to"]),
        (["--record", "/tmp"], ["--record /tmp: /tmp is a folder"]),
        (["--record", "/dev/null/x.json"], ["--record /dev/null/x.json: /dev/null is not a folder"]),
        // Previews: the simulated network only, and the bench's rules for their flags (PreviewTests has the rest).
        (["--previews", "prefix", "--serve"],
         ["--previews applies only to the simulated network; it cannot be combined with --serve or --source"]),
        (["--previews", "variant", "--source", "http://127.0.0.1:9/"],
         ["--previews applies only to the simulated network; it cannot be combined with --serve or --source"]),
        (["--preview-share", "0.2"], ["--preview-share, --preview-full-within-ms and --preview-slots need --previews prefix or variant"]),
        (["--preview-slots", "3"], ["--preview-slots need --previews prefix or variant"]),
        (["--previews", "prefix", "--preview-slots", "65"], ["--preview-slots must be a whole number from 0 to 64; got 65"]),
        (["--previews", "prefix", "--preview-share", "1.5"], ["--preview-share must be a number above 0 and below 1; got 1.5"]),
        (["--previews", "prefix", "--preview-full-within-ms", "70000"], ["--preview-full-within-ms must be a number of ms from 0 to 60000; got 70000"]),
        (["--previews", "blurry"], ["'blurry'", "--previews", "'none', 'prefix' or 'variant'"]),
    ])
    func aBadFlagExitsWithAMessageNamingItAndItsRange(arguments: [String], mentions: [String]) async throws {
        let output = try await DemoProcess.run(arguments)
        #expect(output.status != 0)
        #expect(output.stdout.isEmpty)
        for text in mentions {
            #expect(output.stderr.contains(text), "stderr lacks \"\(text)\": \(output.stderr)")
        }
    }
}
