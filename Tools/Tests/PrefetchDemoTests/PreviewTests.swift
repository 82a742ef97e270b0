import Foundation
import PrefetchDemoKit
import PrefetchKit
import PrefetchSimulation
import PrefetchToolSupport
import Testing

/// `--previews`: the demo on a shared link where a preview arrives before the full value, the
/// screen's preview cells, the summary's counts, and the rules of the flags. Scripted runs on
/// virtual time, so every figure is exact.
@Suite("Previews in the demo")
@MainActor
struct PreviewTests {
    /// Settings with `mode` previews on `profile`'s shared link, playing `script` for `duration` seconds.
    static func settings(_ mode: PreviewOptions.Mode, profile: LatencyProfile = .emerging, script: Script = .steady,
                         duration: Double = 4) throws -> DemoSettings {
        let options = try DemoOptions.parse(["--previews", mode.rawValue, "--latency-profile", profile.rawValue])
        var settings = try options.settings()
        (settings.script, settings.duration) = (script, duration)
        return settings
    }

    @Test func previewsPutTheDemoOnTheBenchsSharedLinkAndNoneKeepsTheSamplesNetwork() throws {
        // Given the default options and --previews prefix
        let plain = try DemoOptions.parse([]).settings()
        let previews = try DemoOptions.parse(["--previews", "prefix"]).settings()
        // Then without previews loads keep independent latencies (a fixed 300 ms, no payload)
        #expect(plain.simulationConfiguration.network == .independent)
        #expect(plain.simulationConfiguration.previews == .none)
        #expect("\(plain.latency)" == "\(try LatencyModel(.fixed(.milliseconds(300))))")
        // And with them the loads share lte's 10 Mbit/s link with the bench's payloads and its lte round trips
        #expect(previews.simulationConfiguration.network == .shared(SharedLink(.lte)))
        #expect(previews.simulationConfiguration.previews == .prefix(share: 0.15))
        #expect("\(previews.latency)" == "\(LatencyProfile.lte.model)")
        #expect(previews.previewsText == "prefix(15 %) on a shared 10 Mbit/s link, 60 KB median payloads, 6 preview slots")
        // A latency profile names the link too; the share and the plan are the bench's flags
        let emerging = try DemoOptions.parse(["--previews", "variant", "--latency-profile", "emerging", "--preview-share", "0.1",
                                              "--preview-full-within-ms", "500"]).settings()
        #expect(emerging.simulationConfiguration.network == .shared(SharedLink(.emerging)))
        #expect(emerging.simulationConfiguration.previews == .variant(share: 0.1))
        #expect(emerging.simulationConfiguration.previewPlan == (try PreviewPlan(fullWithin: .milliseconds(500))))
    }

    @Test(arguments: DemoLayout.allCases)
    func aScriptedRunDrawsCellsHoldingOnlyAPreviewShadedAndTheLegendSaysSo(layout: DemoLayout) async throws {
        // Given prefix previews on the emerging link, where loads are slow enough for previews to show
        var settings = try Self.settings(.prefix)
        settings.layout = layout
        var tiles: [Tile] = []
        // When the screen is drawn while a cell on screen shows only its preview
        let screens = try await ScreenTests.screens(settings) { scene, _ in
            guard (scene.status.previewsOnScreen ?? 0) > 0 else { return false }
            tiles = scene.tiles(in: scene.view.bounds)
            return true
        }
        let screen = try #require(screens.first, "no frame had a preview on screen")
        let text = screen.joined(separator: "\n")
        // Then such a cell is a preview tile, labelled as one and shaded with ░ (neither blank nor full)
        #expect(tiles.contains { if case .preview(_, shown: true) = $0.state { true } else { false } })
        #expect(text.range(of: #"(#|Item )[0-9]+ ░ preview"#, options: .regularExpression) != nil, "\(text)")
        // (A list row is about one line high, its label's: there the label and the flat thumbnail tell.)
        if layout == .grid { #expect(screen.contains { $0.contains("░░░░░░░░░░") }, "no shaded cell:\n\(text)") }
        // And the status counts the previews on screen, the legend explains the shading
        #expect(text.range(of: #"░ previews [1-9]"#, options: .regularExpression) != nil)
        #expect(text.contains(ScreenRenderer.previewLegend))
        // And the title names the previews and the link
        let scene = try DemoScene(settings: settings)
        #expect(scene.backend.label.hasPrefix("previews prefix(15 %) · 1 Mbit/s link · logNormal"))
    }

    @Test func withoutPreviewsTheScreenHasNoPreviewCellNoShadingAndTheSameLegend() async throws {
        // Given the demo's own network (no --previews) and flings
        var settings = try DemoOptions.parse([]).settings()
        (settings.script, settings.duration) = (.fling, 2)
        var everyTile: [Tile] = []
        let screens = try await ScreenTests.screens(settings) { scene, t in
            everyTile += scene.tiles(in: scene.view.bounds)
            return Int((t * 60).rounded()) % 30 == 0
        }
        // Then nothing on any screen is a preview, the legend is the one before previews, and the
        // status has no preview count
        #expect(!screens.isEmpty)
        #expect(!everyTile.contains { if case .preview = $0.state { true } else { false } })
        for screen in screens {
            let text = screen.joined(separator: "\n")
            #expect(!text.contains("░") && !text.contains("preview"), "\(text)")
            for line in ScreenRenderer.wrap(ScreenRenderer.legend, width: 100, lines: 3) {
                #expect(screen.contains { $0.hasPrefix(line) }, "the legend lacks \(line):\n\(text)")
            }
        }
        #expect(ScreenRenderer.legend(previews: false) == ScreenRenderer.legend)
    }

    @Test(arguments: [80, 100])
    func theLegendWithPreviewsIsWholeAtEightyColumns(columns: Int) throws {
        // Given the screen of a run with previews
        let scene = try DemoScene(settings: try Self.settings(.prefix))
        let model = ScreenModel(columns: columns, rows: 40, layout: .grid, viewport: scene.view.bounds, title: "t",
                                status: scene.status, footer: "k", plan: scene.updatePlan(), previews: true)
        let text = ScreenRenderer(colorMode: .none).render(model, tiles: []).joined(separator: "\n")
        // Then every phrase of the legend is there whole, the preview's among them
        for phrase in ScreenRenderer.legend(previews: true) {
            #expect(text.contains(phrase), "\(phrase) is missing or cut at \(columns) columns:\n\(text)")
        }
        #expect(ScreenRenderer.legend(previews: true).contains(ScreenRenderer.previewLegend))
    }

    @Test func theSummaryCountsCellsThatAppearedWithAPreviewOnly() async throws {
        // Given a scripted run with prefix previews
        let settings = try Self.settings(.prefix)
        let result = try await DemoScene(settings: settings).play()
        let full = try #require(result.previewReadyRate)
        // Then some cells appeared with a preview and not their full data
        #expect(full > result.displayReadyRate)
        var summary = DemoSummary(result: result)
        summary.previews = settings.previewsText
        let text = summary.text(title: "t")
        let shown = Double(result.displayed)
        let fullCount = Int((result.displayReadyRate * shown).rounded()), previewOnly = Int(((full - result.displayReadyRate) * shown).rounded())
        #expect(previewOnly > 0)
        #expect(text.contains("  previews             prefix(15 %) on a shared 1 Mbit/s link, 60 KB median payloads, 6 preview slots"), "\(text)")
        #expect(text.contains("  appeared full        \(fullCount) ("), "\(text)")
        #expect(text.contains("  preview only         \(previewOnly) ("), "\(text)")
        #expect(text.contains("  blank                \(result.displayed - fullCount - previewOnly) ("), "\(text)")
        // And without previews (no rate) the summary says nothing of them
        var none = DemoSummary(result: result)
        none.result.previewReadyRate = nil
        none.previews = nil
        #expect(!none.text(title: "t").contains("preview"))
    }

    @Test func thePlainRunWithPreviewsPrintsTheCountsAndTheJSONItsRate() async throws {
        let arguments = ["--script", "steady", "--duration", "4", "--previews", "prefix", "--latency-profile", "emerging"]
        let output = try await DemoProcess.run(arguments + ["--plain"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("previews prefix(15 %) on a shared 1 Mbit/s link"))
        let line = try #require(output.stdout.split(separator: "\n").first { $0.hasPrefix("  preview only ") })
        #expect(line.range(of: #"preview only +[1-9][0-9]* \("#, options: .regularExpression) != nil, "\(line)")
        #expect(output.stdout.contains("previews on screen "), "the progress lines count the previews on screen")
        let summary = try await DemoProcess.summary(arguments)
        #expect(try #require(summary["previewReadyRate"]) > #require(summary["displayReadyRate"]))
    }

    @Test func previewsNoneChangesNothingInTheOutput() async throws {
        // Given the same run without the flag and with --previews none
        let arguments = ["--script", "steady", "--duration", "3", "--latency-ms", "120", "--latency-p99-ms", "1200", "--seed", "4"]
        let without = try await DemoProcess.run(arguments + ["--plain"])
        let none = try await DemoProcess.run(arguments + ["--plain", "--previews", "none"])
        // Then the output is the same, byte for byte, and says nothing of previews
        #expect(without.status == 0 && none.status == 0)
        #expect(without.stdout == none.stdout)
        #expect(!none.stdout.contains("preview"))
        #expect(none.stdout.contains("latency logNormal(median 120 ms, p99 1200 ms), seed 4\n"))
        // And the JSON has exactly the keys it had
        let json = try await DemoProcess.run(arguments + ["--json", "--previews", "none"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == CLITests.keys)
    }

    @Test func aRecordedSessionWithPreviewsIsReplayedOnTheBenchsLinkWithTheSamePreviews() throws {
        let options = try DemoOptions.parse(["--previews", "variant", "--preview-share", "0.1", "--latency-profile", "emerging"])
        let note = DemoRunner.recordingNote(path: "/tmp/s.json", options: options, settings: try options.settings(), remote: false)
        let closer = try #require(note.last)
        #expect(closer.hasSuffix("--latency-profile emerging --previews variant --preview-share 0.1"), "\(closer)")
        #expect(!closer.contains("--network independent"))
        // And the note says why a plain replay differs: the bench has no previews unless told
        #expect(note[2].contains("60 KB median payloads) without previews, not over the demo's simulated network with previews (variant(10 %)"),
                "\(note[2])")
    }
}

/// The title line at 100 columns: whole, its long forms traded for short ones only when it would
/// not fit.
@Suite("The demo's title line")
@MainActor
struct TitleLineTests {
    nonisolated static let cases: [[String]] = [
        [], ["--latency-profile", "emerging"], ["--previews", "prefix"], ["--previews", "variant", "--latency-profile", "emerging"],
        ["--layout", "list", "--previews", "prefix", "--latency-profile", "emerging", "--policy", "textureLike"],
        ["--layout", "list", "--previews", "variant", "--latency-profile", "emerging", "--policy", "textureLike", "--no-prefetch"],
    ]

    @Test(arguments: cases)
    func theTitleIsWholeAt100Columns(_ arguments: [String]) throws {
        // Given the title a scripted run draws with these flags
        var settings = try DemoOptions.parse(arguments).settings()
        settings.script = .steady
        let backend = try SimulatedBackend(settings: settings)
        let title = ScreenPainter.title(settings, policy: settings.policy.name, prefetching: settings.prefetching,
                                        data: backend.label, mode: "script steady")
        // When it is fitted to 100 and to 200 columns
        let narrow = ScreenRenderer.fitTitle(title, width: 100), wide = ScreenRenderer.fitTitle(title, width: 200)
        // Then at 100 nothing is cut, and what identifies the run is still there
        #expect(narrow.count <= 100 && !narrow.contains("…"), "\(narrow.count): \(narrow)")
        for fact in ["steady", settings.layout.rawValue, settings.policy.name, "seed 1"] {
            #expect(narrow.contains(fact), "\(fact) missing from \(narrow)")
        }
        if arguments.contains("--previews") { #expect(narrow.contains("previews"), "\(narrow)") }
        if !settings.prefetching { #expect(narrow.contains("OFF"), "\(narrow)") }
        // And at 200 columns it is the title as built
        #expect(wide == title)
    }
}
