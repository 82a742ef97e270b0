import Foundation
import PrefetchKit
import PrefetchToolSupport
import PrefetchDemoKit
import PrefetchTesting
import Testing

@Suite("The screen and the keys")
@MainActor
struct ScreenTests {
    @Test func keysParseArrowsPagesAndLetters() {
        let bytes: [UInt8] = Array("\u{1B}[A\u{1B}[B\u{1B}[5~\u{1B}[6~jk gG+-pcmq".utf8) + [0x03]
        #expect(Key.parse(bytes) == [.up, .down, .pageUp, .pageDown, .down, .up, .pageDown, .top, .bottom,
                                     .slower, .faster, .togglePrefetch, .cyclePolicy, .memoryWarning, .quit, .quit])
        #expect(Key.parse(Array("\u{1B}OA\u{1B}[Zx".utf8)) == [.up])
    }

    /// Plays `settings`' script and renders the screen at 100 × 40 (no colours) after every frame
    /// for which `when` holds; returns those screens.
    static func screens(_ settings: DemoSettings, columns: Int = 100, rows: Int = 40, footer: String = ScreenPainter.interactiveKeys,
                        when: (DemoScene, Double) -> Bool) async throws -> [[String]] {
        let scene = try DemoScene(settings: settings)
        var screens: [[String]] = []
        _ = try await scene.play { frame in
            // The plan is followed every frame, as the screen follows it every drawn frame.
            scene.updatePlan()
            if when(scene, frame.time) {
                screens.append(ScreenPainter.lines(scene, renderer: ScreenRenderer(colorMode: .none), columns: columns, rows: rows,
                                                   title: "title", footer: footer))
            }
            return true
        }
        return screens
    }

    @Test func aScriptedSceneDrawsTheFrameTheCellsAndTheStatus() async throws {
        // Given a steady scroll half a second in, on a fixed 400 ms network
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(400)))
        (settings.script, settings.duration) = (.steady, 1.2)
        let screen = try #require(try await Self.screens(settings, footer: "keys") { _, t in abs(t - 1.2) < 1e-9 }.first)
        // Then the screen has 40 lines of 100 columns, a framed viewport, and cells in each state
        #expect(screen.count == 40)
        #expect(screen.allSatisfy { $0.count == 100 })
        let text = screen.joined(separator: "\n")
        #expect(screen.filter { $0.dropFirst().hasPrefix("┌") }.count == 1)
        #expect(screen.filter { $0.dropFirst().hasPrefix("└") }.count == 1)
        #expect(text.contains("◌ loading") || text.contains("✓ cached"))
        #expect(text.contains("offset 0 pt") == false)
        let status = try #require(screen.firstIndex { $0.hasPrefix("offset ") })
        #expect(screen[status...].joined().contains("visible #"))
        #expect(screen[status...].contains { $0.hasPrefix("plan: window #") })
        #expect(screen[39].hasPrefix("keys"))
        // And the colour renderer writes escape codes for the same kind of screen
        let scene = try DemoScene(settings: settings)
        let model = ScreenModel(columns: 60, rows: 20, layout: .grid, viewport: scene.view.bounds,
                                title: "t", status: scene.status, footer: "k")
        let coloured = ScreenRenderer(colorMode: .trueColor).render(model, tiles: scene.tiles(in: scene.view.bounds))
        #expect(coloured.joined().contains("\u{1B}[0;"))
    }

    @Test func aFlingDrawsTheWindowWhereItRestsAndWhyEachCellLoads() async throws {
        // Given flings on a 150 ms network under the adaptive policy
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(150)))
        (settings.script, settings.duration) = (.fling, 1.5)
        // When the screen is drawn while the first fling coasts
        let screens = try await Self.screens(settings) { scene, t in scene.view.isDecelerating && t > 0.3 && t < 0.6 }
        let screen = try #require(screens.first)
        let text = screen.joined(separator: "\n")
        // Then the plan line says where the fling rests, on which items, and which items are requested
        let plan = try #require(screen.first { $0.hasPrefix("plan: window #") })
        #expect(plan.contains("◆ fling rests at") && plan.contains("pt (+"), "\(plan)")
        #expect(plan.contains("requested"))
        // The left margin brackets the requested window; the landing column and the map mark where it rests
        let drawing = screen[1..<screen.firstIndex(where: { $0.hasPrefix("offset ") })!]
        #expect(drawing.contains { $0.hasPrefix("┃") || $0.hasPrefix("▼") })
        #expect(drawing.contains { $0.dropFirst(97).contains("◆") || $0.dropFirst(97).contains("▼") })
        #expect(drawing.contains { $0.hasSuffix("█") }, "the map shows the screen")
        // Cells off screen say why they load
        #expect(text.contains("▸ ahead") || text.contains("◆ landing"))
        // And the legend explains every mark, the skipped and never-loaded cells among them
        for mark in ["┃ requested window", "◆ where the fling rests", "↷ flown past: skipped", "✕ withdrawn", "· not loaded", "dim: off screen"] {
            #expect(text.contains(mark), "the legend lacks \(mark)")
        }
    }

    @Test func cellsAFlingSkipsAndRequestsWithdrawnAreMarked() async throws {
        // Given a slow network and the none policy, which requests nothing ahead
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(1_200)))
        settings.policy = PrefetchPolicies.none
        (settings.script, settings.duration) = (.fling, 2.5)
        // When flings run
        var flownPast = 0, withdrawn = 0
        let screens = try await Self.screens(settings) { scene, _ in
            (flownPast, withdrawn) = (max(flownPast, scene.plan.figures.flownPast), max(withdrawn, scene.plan.figures.withdrawn))
            return scene.plan.figures.flownPast > 0 && scene.plan.figures.landing != nil
        }
        // Then the cells between the screen and where a fling rests are marked flown past, and
        // counted in the plan line
        #expect(flownPast > 0)
        let screen = try #require(screens.first)
        #expect(screen.contains { $0.contains("↷ flown past, not requested") })
        #expect(screen.contains { $0.range(of: #"↷ [1-9][0-9]* flown past"#, options: .regularExpression) != nil })
        // And cells requested on screen that the fling left before their data came are marked withdrawn
        #expect(withdrawn > 0)
    }

    @Test func turningPrefetchingOffWithdrawsTheRequestsAhead() async throws {
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(2_000)))
        (settings.script, settings.duration) = (.steady, 1)
        let scene = try DemoScene(settings: settings)
        var before = PlanFigures(), after = PlanFigures()
        _ = try await scene.play { frame in
            if abs(frame.time - 0.5) < 1e-9 {
                before = scene.updatePlan()
                scene.app.isPrefetchingEnabled = false
            }
            if abs(frame.time - 0.6) < 1e-9 { after = scene.updatePlan() }
            return true
        }
        #expect(before.requested > 6 && before.window != nil)
        #expect(after.prefetching == false && after.requested == 0)
        #expect(after.withdrawn > 0)
    }

    @Test func atOneHundredColumnsNothingIsCut() async throws {
        // Given the longest status there is: a server's bytes and link share, and a long message
        var settings = DemoSettings()
        (settings.script, settings.duration) = (.steady, 0.5)
        let scene = try DemoScene(settings: settings)
        _ = try await scene.play()
        var status = scene.status
        status.wire = WireFigures(bytesReceived: 4_123_456, seconds: 96, budget: try BandwidthRate.parse("1mbit"))
        status.offset = 123_456
        status.velocity = -3_000
        status.visible = 99_990...99_999
        let message = "memory warning sent: cache 1234 → 12 values  for 0.5 s the plan keeps only the screen and a fling's landing zone"
        for columns in [100, 120] {
            let model = ScreenModel(columns: columns, rows: 40, layout: .grid, viewport: scene.view.bounds,
                                    title: " prefetch-demo · interactive · grid · adaptive · prefetching ON · http://127.0.0.1:54321",
                                    status: status, footer: ScreenPainter.interactiveKeys, message: message, plan: scene.updatePlan())
            let screen = ScreenRenderer(colorMode: .none).render(model, tiles: [])
            let text = screen.joined(separator: "\n")
            // Then no line is wider than the terminal, none ends cut short, and every phrase is there whole
            #expect(screen.allSatisfy { $0.count == columns })
            // (The legend's own "… queued" aside, an ellipsis would mark a cut.)
            #expect(!text.replacingOccurrences(of: "… queued", with: "").contains("…"), "a line was cut at \(columns) columns:\n\(text)")
            for phrase in ["offset 123456 pt", "visible #99991–#100000", "4.12 MB received", "link 34.4% of 1 Mbit/s", "mem ", "modelled",
                           "memory warning sent: cache 1234 → 12 values", "landing zone", "m memory warning", "c next policy", "q quit"] {
                #expect(text.contains(phrase), "\(phrase) is missing or cut at \(columns) columns:\n\(text)")
            }
        }
    }

    @Test func wrappingKeepsPhrasesWholeAndBreaksOnlyOverlongOnesBetweenWords() {
        #expect(ScreenRenderer.wrap(["alpha beta", "gamma", "delta"], width: 12, lines: 3) == ["alpha beta", "gamma  delta"])
        #expect(ScreenRenderer.wrap(["one two three four"], width: 9, lines: 3) == ["one two", "three", "four"])
        #expect(ScreenRenderer.wrap(["aaaa", "bbbb", "cccc"], width: 5, lines: 2) == ["aaaa", "bbbb…"])
    }
}
