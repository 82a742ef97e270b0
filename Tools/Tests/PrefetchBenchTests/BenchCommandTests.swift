import Foundation
import IOTestSupport
import Testing

/// Runs the built `prefetch-bench` the way a person would, and reads what it prints and writes.
@Suite(.serialized) struct BenchCommandTests {
    static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// Runs the bench with `arguments` on a thread of its own (under ThreadSanitizer a run takes
    /// tens of seconds; waiting on it in the test's task would hold one of the cooperative pool's
    /// two threads, and the in-process servers of other suites would starve).
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> (status: Int32, out: String, err: String) {
        try await onBlockingThread {
            let process = Process()
            process.executableURL = productsDirectory.appendingPathComponent("prefetch-bench")
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
        }
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-bench-\(UUID().uuidString)-\(name)")
    }

    /// Runs the bench with `args` in two processes, expecting the same JSON from both (Swift seeds
    /// hashing per process: two processes catch any order that leaks from a Set or Dictionary).
    /// Returns the first run and its JSON.
    static func runTwice(_ args: [String]) async throws -> (first: (status: Int32, out: String, err: String), json: Data) {
        let a = temporaryFile("a.json"), b = temporaryFile("b.json")
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        let first = try await run(args + ["--json", a.path])
        let second = try await run(args + ["--json", b.path])
        #expect(first.status == 0 && second.status == 0, "\(first.err)\(second.err)")
        let dataA = try Data(contentsOf: a), dataB = try Data(contentsOf: b)
        #expect(dataA == dataB)
        return (first, dataA)
    }

    @Test func writesTheSameJSONInTwoProcesses() async throws {
        // Failures too: retries wait out the fetcher's back-off on the virtual clock.
        // One scenario, every policy (the clairvoyant references included); the other
        // two-process tests cover previews, the phone link and SwiftUI's binding.
        let args = ["--quiet", "--scenario", "jumps-list", "--seed", "7", "--failure-rate", "0.2"]
        let (first, dataA) = try await Self.runTwice(args)
        let object = try JSONSerialization.jsonObject(with: dataA) as? [String: Any]
        let results = try #require(object?["results"] as? [[String: Any]])
        #expect(results.count == 6)
        let keys: Set<String> = ["scenario", "policy", "displayReadyRate", "visibleWaitMeanMs", "visibleWaitP95Ms", "blankCellSeconds",
                                 "loadsStarted", "loadsCancelled", "loadsWasted", "peakInFlight", "bytesWasted", "bytesOnWire", "linkUtilisation",
                                 "loadsNeverShown", "settleMeanMs", "settleP95Ms", "peakMemoryBytes"]
        for result in results { #expect(keys.isSubset(of: Set(result.keys)), "missing \(keys.subtracting(result.keys))") }
        #expect(first.out.contains("jumps-list") && first.out.contains("clairvoyant"))
    }

    @Test func previewsRepeatInTwoProcesses() async throws {
        // The items whose previews came near were once requested in full in a dictionary's
        // order, which each process draws afresh: these two runs differed in one process of two.
        let args = ["--quiet", "--scenario", "back-and-forth-grid", "--policy", "uikitLike", "--policy", "textureLike",
                    "--latency-profile", "emerging", "--previews", "prefix"]
        let (_, data) = try await Self.runTwice(args)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let results = try #require(object?["results"] as? [[String: Any]])
        #expect(results.count == 2)
        #expect(results.allSatisfy { ($0["previewReadyRate"] as? Double ?? 0) > 0 }, "\(results)")
    }

    @Test func thePhoneLinkRepeatsInTwoProcessesAndRefusesBadFlagsByName() async throws {
        // Every effect on, the bursty chain included: the same seed gives the same bytes in every process.
        let args = ["--quiet", "--scenario", "flings-list", "--policy", "adaptive", "--link", "phone", "--latency-profile", "emerging"]
        let (first, _) = try await Self.runTwice(args)
        #expect(first.out.contains("sizes cell(thumbnail jpeg") && first.out.contains("radio wake(2.0 s after 17.0 s idle)"))
        let link = try await Self.run(["--link", "tablet"])
        #expect(link.status != 0 && link.err.contains("'tablet'") && link.err.contains("'classic' and 'phone'"))
        let format = try await Self.run(["--image-format", "webp"])
        #expect(format.status != 0 && format.err.contains("--image-format webp applies only to cell payloads"))
        let independent = try await Self.run(["--network", "independent", "--no-slow-start"])
        #expect(independent.status != 0 && independent.err.contains("--no-slow-start applies only to --network shared"))
    }

    @Test func badFlagsNameTheValueAndTheRule() async throws {
        let cap = try await Self.run(["--cap", "0"])
        #expect(cap.status != 0)
        #expect(cap.err.contains("--cap 0 is out of range; use 1 to 64"))
        let p99 = try await Self.run(["--latency-median-ms", "200", "--latency-p99-ms", "100"])
        #expect(p99.status != 0)
        #expect(p99.err.contains("--latency-p99-ms must be from the median (200 ms) to 60000 ms; got 100"))
        let median = try await Self.run(["--latency-median-ms", "2000"])
        #expect(median.status != 0)
        #expect(median.err.contains("--latency-median-ms must be at most the 99th percentile (1500 ms); got 2000"))
        let fixed = try await Self.run(["--latency-fixed-ms", "100", "--latency-profile", "wifi"])
        #expect(fixed.status != 0)
        #expect(fixed.err.contains("--latency-fixed-ms and --latency-profile cannot be combined"))
        let policy = try await Self.run(["--policy", "psychic"])
        #expect(policy.status != 0)
        #expect(policy.err.contains("unknown policy 'psychic'; expected one of none, uikitLike, textureLike, adaptive, clairvoyant"))
        let profile = try await Self.run(["--latency-profile", "5g"])
        #expect(profile.status != 0)
        #expect(profile.err.contains("The value '5g' is invalid for '--latency-profile <latency-profile>'. Please provide one of 'wifi', 'lte' or 'emerging'."))
        let scenario = try await Self.run(["--scenario", "nope"])
        #expect(scenario.err.contains("--scenario 'nope' is unknown"))
        let budget = try await Self.run(["--memory-budget-mb", "0"])
        #expect(budget.status != 0 && budget.err.contains("--memory-budget-mb 0 is out of range; use 1 to 65536 MiB"))
        let pressure = try await Self.run(["--memory-pressure-at", "2", "--memory-pressure-at=-1"])
        #expect(pressure.status != 0 && pressure.err.contains("--memory-pressure-at -1.0 is out of range; use a finite number of seconds, at least 0"))
        let pressed = try await Self.run(["--scenario", "steady-grid", "--policy", "adaptive", "--memory-pressure-at", "5", "--quiet"])
        #expect(pressed.status == 0 && pressed.out.contains("memory pressure at 5.0 s"), "\(pressed.err)")
        let perMinute = try await Self.run(["--prefetch-mb-per-minute=-2"])
        #expect(perMinute.status != 0 && perMinute.err.contains("--prefetch-mb-per-minute -2.0 is out of range; use 0 to 100000 MB"), "\(perMinute.err)")
        let read = try await Self.run(["--store-read-ms", "0"])
        #expect(read.status != 0 && read.err.contains("--store-read-ms 0.0 is out of range; use 1 to 10000 ms"), "\(read.err)")
        let destinations = try await Self.run(["--destinations", "disk"])
        #expect(destinations.status != 0 && destinations.err.contains("Please provide one of 'memory-only' and 'store'"), "\(destinations.err)")
        let conditions = try await Self.run(["--conditions", "metered"])
        #expect(conditions.status != 0 && conditions.err.contains("'normal', 'constrained' or 'expensive'"))
    }

    @Test func aMemoryBudgetBoundsThePeakAndLowDataModeWastesLess() async throws {
        func first(_ extra: [String]) async throws -> [String: Any] {
            let file = Self.temporaryFile("budget-\(extra.joined()).json")
            defer { try? FileManager.default.removeItem(at: file) }
            let run = try await Self.run(["--quiet", "--scenario", "flings-grid", "--policy", "adaptive", "--json", file.path] + extra)
            #expect(run.status == 0, "\(run.err)")
            let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: file)) as? [String: Any]
            return try #require((object?["results"] as? [[String: Any]])?.first)
        }
        let free = try await first([]), bounded = try await first(["--memory-budget-mb", "16"])
        #expect(try #require(free["peakMemoryBytes"] as? Int) > 16 << 20)
        #expect(try #require(bounded["peakMemoryBytes"] as? Int) <= 16 << 20)
        let small = try await first(["--memory-budget-mb", "16", "--value-kb", "64"])
        // Values of 64 KiB under 16 MiB: as many fit as 1 MiB values under 256 MiB, more than this run ever
        // holds, so the same loads (an app with a budget refreshes its prefetcher at rest, so both runs do)
        // hold a sixteenth
        let roomy = try await first(["--memory-budget-mb", "256"])
        #expect(try #require(small["peakMemoryBytes"] as? Int) == #require(roomy["peakMemoryBytes"] as? Int) / 16)
        // Under the budget a data store is on by default: what memory cannot hold goes to the store and
        // is promoted as it comes near; without it (memory-only) fewer cells are ready
        let noStore = try await first(["--memory-budget-mb", "16", "--destinations", "memory-only"])
        #expect(try #require(bounded["displayReadyRate"] as? Double) > #require(noStore["displayReadyRate"] as? Double))
        #expect(try #require(noStore["peakMemoryBytes"] as? Int) <= 16 << 20)
        let constrained = try await first(["--conditions", "constrained"])
        #expect(try #require(constrained["loadsWasted"] as? Int) < #require(free["loadsWasted"] as? Int))
        // A byte budget of 0.6 MB a minute: ten 60 KB prefetches a minute, far fewer loads than without
        let capped = try await first(["--prefetch-mb-per-minute", "0.6"])
        #expect(try #require(capped["loadsStarted"] as? Int) < #require(free["loadsStarted"] as? Int))
        #expect(try #require(capped["bytesOnWire"] as? Int) < #require(free["bytesOnWire"] as? Int))
    }

    @Test func networkFlagsChooseTheLinkAndNameTheirRules() async throws {
        let shared = try await Self.run(["--scenario", "jumps-list", "--policy", "uikitLike", "--latency-profile", "emerging", "--http", "1.1", "--quiet"])
        #expect(shared.status == 0, "\(shared.err)")
        #expect(shared.out.contains("network shared(1.0 Mbit/s, HTTP/1.1, sizes logNormal(median 60000 B, p99 600000 B))"), "\(shared.out.prefix(300))")
        let independent = try await Self.run(["--scenario", "jumps-list", "--policy", "uikitLike", "--network", "independent", "--quiet"])
        #expect(independent.status == 0 && independent.out.contains("network independent"), "\(independent.err)")
        let mixed = try await Self.run(["--network", "independent", "--link-mbps", "5"])
        #expect(mixed.status != 0 && mixed.err.contains("--link-mbps applies only to --network shared"), "\(mixed.err)")
        let zero = try await Self.run(["--link-mbps", "0"])
        #expect(zero.status != 0 && zero.err.contains("--link-mbps must be a number above 0 and at most 100000; got 0.0"), "\(zero.err)")
        let noResume = try await Self.run(["--scenario", "jumps-list", "--policy", "uikitLike", "--no-resume", "--quiet"])
        #expect(noResume.status == 0 && noResume.out.contains(", no resuming)"), "\(noResume.err)")
        let resumeIndependent = try await Self.run(["--network", "independent", "--no-resume"])
        #expect(resumeIndependent.status != 0 && resumeIndependent.err.contains("--no-resume applies only to --network shared"))
        let byPriority = try await Self.run(["--scenario", "jumps-list", "--policy", "uikitLike", "--link-sharing", "priority", "--quiet"])
        #expect(byPriority.status == 0 && byPriority.out.contains(", by priority)"), "\(byPriority.err)")
        let priorityIndependent = try await Self.run(["--network", "independent", "--link-sharing", "priority"])
        #expect(priorityIndependent.status != 0 && priorityIndependent.err.contains("--link-sharing applies only to --network shared"))
        let http = try await Self.run(["--http", "3"])
        #expect(http.status != 0 && http.err.contains("'--http <version>'"), "\(http.err)")
    }

    @Test func thePeersRunBesideOursAndAloneByName() async throws {
        let peers = ["nuke", "kingfisher", "sdwebimage", "flashlist", "compose", "flutter", "chrome", "glide"]
        let both = try await Self.run(["--quiet", "--scenario", "long-fling-list", "--policy", "adaptive", "--peers"])
        #expect(both.status == 0, "\(both.err)")
        for name in ["adaptive"] + peers {
            #expect(both.out.contains("long-fling-list  \(name) "), "\(name) is missing:\n\(both.out)")
        }
        let alone = try await Self.run(["--quiet", "--scenario", "long-fling-list", "--policy", "nuke"])
        #expect(alone.status == 0, "\(alone.err)")
        #expect(alone.out.contains("nuke") && !alone.out.contains("adaptive") && !alone.out.contains("glide"))
        let bogus = try await Self.run(["--policy", "bogus"])
        #expect(bogus.status != 0)
        #expect(bogus.err.contains("unknown policy 'bogus'; expected one of none, uikitLike, textureLike, adaptive, clairvoyant, clairvoyant-1s, or a peer: \(peers.joined(separator: ", "))"))
        let frontier = try await Self.run(["--peers", "--frontier"])
        #expect(frontier.status != 0)
        #expect(frontier.err.contains("--peers and --frontier cannot be combined"))
    }

    @Test(.timeLimit(.minutes(2))) func aReportIntoAPipeIsWrittenInPlaceNotReplaced() async throws {
        // Given a named pipe (what `/dev/null` or `/dev/stdout` is to the bench: not a regular
        // file), with a reader on the other end
        let fifo = Self.temporaryFile("report.fifo")
        defer { try? FileManager.default.removeItem(at: fifo) }
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [fifo.path]
        let out = Pipe()
        reader.standardOutput = out
        try reader.run()
        // When the bench writes its HTML report there
        let result = try await Self.run(["--quiet", "--scenario", "slow-list", "--policy", "none", "--report", fifo.path])
        #expect(result.status == 0, "\(result.err)")
        // Then the pipe is still a pipe (an atomic rename would have put a regular file in its
        // place, and for root that replaces /dev/null) ...
        let type = try FileManager.default.attributesOfItem(atPath: fifo.path)[.type] as? FileAttributeType
        guard type != .typeRegular, result.status == 0 else {
            Issue.record("the bench failed or replaced the pipe; the path now holds a \(type.map { "\($0)" } ?? "missing") file")
            kill(reader.processIdentifier, SIGKILL)   // nobody will ever write to the pipe
            reader.waitUntilExit()
            return
        }
        // ... and the reader got the whole page through it
        let page = try await onBlockingThread {
            let page = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            reader.waitUntilExit()
            return page
        }
        #expect(page.contains("<svg") && page.contains("slow-list"))
        #expect(page.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("</html>"), "\(page.suffix(80))")
    }

    @Test func progressIsNotDrawnIntoAFileOrAPipe() async throws {
        // Given standard error that is a pipe, and no --quiet
        let result = try await Self.run(["--scenario", "jumps-list", "--policy", "uikitLike", "--policy", "none"])
        #expect(result.status == 0, "\(result.err)")
        // Then no progress line, no carriage return and no escape code goes into it
        #expect(!result.err.contains("\r") && !result.err.contains("\u{1B}"), "\(result.err.debugDescription)")
        #expect(!result.err.contains("[1/"))
        #expect(result.out.contains("jumps-list"))
    }

    @Test func aReportGivenABareNameSaysTheAbsolutePathItWroteAndWarnsInsideAGitWorkTree() async throws {
        // Given a folder that is a git work tree (it has a .git entry), as the repository's root is
        let tree = Self.temporaryFile("tree")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let plain = Self.temporaryFile("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tree); try? FileManager.default.removeItem(at: plain) }
        let arguments = ["--quiet", "--scenario", "slow-list", "--policy", "none", "--report", "report.html", "--json", "results.json"]
        // When the bench writes its report by a bare name from inside it
        let inside = try await Self.run(arguments, in: tree)
        #expect(inside.status == 0, "\(inside.err)")
        // Then it says where each file went, by absolute path, and warns that they are among the sources
        let report = tree.appendingPathComponent("report.html").standardizedFileURL.path
        #expect(inside.out.contains("wrote the HTML report to \(report)"), "\(inside.out)")
        #expect(inside.out.contains("wrote the results as JSON to \(tree.appendingPathComponent("results.json").standardizedFileURL.path)"))
        #expect(FileManager.default.fileExists(atPath: report))
        #expect(inside.err.contains("prefetch-bench: note: \(report) is inside the git work tree \(tree.standardizedFileURL.path)"), "\(inside.err)")
        // And outside a work tree it says where, with no warning
        let outside = try await Self.run(arguments, in: plain)
        #expect(outside.status == 0 && outside.out.contains("wrote the HTML report to \(plain.appendingPathComponent("report.html").standardizedFileURL.path)"))
        #expect(!outside.err.contains("git work tree"), "\(outside.err)")
    }

    @Test func aBadTraceFileNamesThePathToTheField() async throws {
        let trace = Self.temporaryFile("trace.json")
        defer { try? FileManager.default.removeItem(at: trace) }
        try Data(#"{"viewport": {"width": 375, "height": 667}, "layout": {"kind": "list", "itemCount": 10, "itemHeight": "tall"}, "samples": [[0, 0]]}"#.utf8)
            .write(to: trace)
        let result = try await Self.run(["--trace", trace.path, "--quiet"])
        #expect(result.status != 0)
        #expect(result.err.contains("layout.itemHeight: expected a number, got a string"))
    }

    @Test func theHTMLReportRendersInAHeadlessBrowser() async throws {
        let report = Self.temporaryFile("report.html"), shot = Self.temporaryFile("report.png")
        defer { try? FileManager.default.removeItem(at: report); try? FileManager.default.removeItem(at: shot) }
        let result = try await Self.run(["--quiet", "--scenario", "flings-grid", "--policy", "adaptive", "--policy", "clairvoyant", "--report", report.path])
        #expect(result.status == 0, "\(result.err)")
        let html = try String(contentsOf: report, encoding: .utf8)
        // Self-contained: no scripts, and nothing fetched (the SVG namespace URI is a name, not a fetch).
        for external in ["<script", "<link", "src=", "href=", "url(", "@import"] {
            #expect(!html.contains(external), "the report refers to something outside it: \(external)")
        }
        #expect(html.contains("<svg") && html.contains("flings-grid") && html.contains("clairvoyant"))
        #expect(html.contains("prefetch window"), "a report with timelines explains their colours")
        guard let browser = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            print("skipped the browser rendering: no Chromium found (.ci/run installs it with apt-get)")
            return
        }
        let chromium = Process()
        chromium.executableURL = URL(fileURLWithPath: browser)
        chromium.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1000,1200",
                              "--screenshot=\(shot.path)", report.absoluteString]
        chromium.standardOutput = FileHandle.nullDevice
        chromium.standardError = FileHandle.nullDevice
        try chromium.run()
        try await onBlockingThread { chromium.waitUntilExit() }
        let png = try Data(contentsOf: shot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
        // A blank page compresses to a few kilobytes; the charts and timelines make it far larger.
        #expect(png.count > 20_000, "screenshot is only \(png.count) bytes")
    }

    @Test func generatesTracesAndRunsTheFolder() async throws {
        let folder = Self.temporaryFile("traces")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try await Self.run(["generate", "--count", "2", "--seed", "1000", "--profile", "gallery", "--duration", "5", "--out", folder.path])
        #expect(generated.status == 0, "\(generated.err)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["gallery-1000.json", "gallery-1001.json"])
        let run = try await Self.run(["--quiet", "--traces", folder.path, "--policy", "uikitLike", "--latency-profile", "wifi"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("gallery-1000") && run.out.contains("gallery-1001") && run.out.contains("median 40 ms"))
        let single = try await Self.run(["--quiet", "--trace", folder.appendingPathComponent("gallery-1001.json").path, "--policy", "none"])
        #expect(single.status == 0 && single.out.contains("gallery-1001") && !single.out.contains("gallery-1000"))
    }

    @Test func generatesMomentsTracesOfGesturesAndRunsThem() async throws {
        let folder = Self.temporaryFile("moments")
        defer { try? FileManager.default.removeItem(at: folder) }
        let generated = try await Self.run(["generate", "--moments", "--count", "1", "--seed", "1000", "--profile", "search", "--duration", "5", "--out", folder.path])
        #expect(generated.status == 0 && generated.out.contains("wrote 1 search moments traces"), "\(generated.err)")
        let file = folder.appendingPathComponent("search-moments-1000.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("\"gestures\": [") && text.contains("\"bounces\": true") && !text.contains("\"samples\""))
        let run = try await Self.run(["--quiet", "--trace", file.path, "--policy", "uikitLike", "--latency-profile", "wifi"])
        #expect(run.status == 0 && run.out.contains("search-moments-1000"), "\(run.err)")
    }

    @Test func badGeneratorOptionsAndAnEmptyFolderAreNamed() async throws {
        let count = try await Self.run(["generate", "--count", "0", "--out", "/tmp/unused"])
        #expect(count.status != 0 && count.err.contains("--count 0 is out of range; use 1 to 10000"))
        let seed = try await Self.run(["generate", "--seed", "0", "--out", "/tmp/unused"])
        #expect(seed.status != 0 && seed.err.contains("--seed 0 is out of range; use 1 or more"))
        let profile = try await Self.run(["generate", "--profile", "tv", "--out", "/tmp/unused"])
        #expect(profile.status != 0 && profile.err.contains("--profile 'tv' is unknown; use one of feed, search, gallery"))
        let duration = try await Self.run(["generate", "--duration", "1", "--out", "/tmp/unused"])
        #expect(duration.status != 0 && duration.err.contains("--duration 1.0 is out of range; use 5 to 600 seconds"))
        let empty = Self.temporaryFile("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        let run = try await Self.run(["--traces", empty.path])
        #expect(run.status != 0 && run.err.contains("\(empty.path): the trace folder holds no *.json trace"))
    }

    @Test func toolkitDefaultsToUIKitRunsSwiftUIAndRefusesOthersByName() async throws {
        let args = ["--quiet", "--scenario", "flings-list", "--policy", "adaptive"]
        // No flag is --toolkit uikit, byte for byte, header included: two processes, so this is
        // also the UIKit binding repeating across processes.
        let plainFile = Self.temporaryFile("plain.json"), uikitFile = Self.temporaryFile("uikit.json")
        defer { for file in [plainFile, uikitFile] { try? FileManager.default.removeItem(at: file) } }
        let plain = try await Self.run(args + ["--json", plainFile.path])
        let uikit = try await Self.run(args + ["--toolkit", "uikit", "--json", uikitFile.path])
        #expect(plain.status == 0 && uikit.status == 0, "\(plain.err)\(uikit.err)")
        let uikitJSON = try Data(contentsOf: uikitFile)
        #expect(try Data(contentsOf: plainFile) == uikitJSON)
        let header = { (out: String) in out.split(separator: "\n").first.map(String.init) }
        #expect(header(plain.out) == header(uikit.out))
        #expect(!plain.out.contains("toolkit"))
        // SwiftUI's binding repeats in two processes and says so in the header.
        let (swiftui, swiftuiJSON) = try await Self.runTwice(args + ["--toolkit", "swiftui"])
        #expect(swiftui.out.contains(", toolkit swiftui"))
        #expect(swiftuiJSON != uikitJSON, "the binding changes what the controller hears, so some figure differs")
        let bad = try await Self.run(["--toolkit", "appkit"])
        #expect(bad.status != 0 && bad.err.contains("--toolkit 'appkit' is unknown; use uikit or swiftui"), "\(bad.err)")
    }
}
