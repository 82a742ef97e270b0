import Foundation
import PrefetchToolSupport
import PrefetchDemoKit
import PrefetchTesting
import Testing

@Suite("The screen and the keys")
@MainActor
struct ScreenTests {
    @Test func keysParseArrowsPagesAndLetters() {
        let bytes: [UInt8] = Array("\u{1B}[A\u{1B}[B\u{1B}[5~\u{1B}[6~jk gG+-pq".utf8) + [0x03]
        #expect(Key.parse(bytes) == [.up, .down, .pageUp, .pageDown, .down, .up, .pageDown, .top, .bottom,
                                     .slower, .faster, .togglePrefetch, .quit, .quit])
        #expect(Key.parse(Array("\u{1B}OA\u{1B}[Zx".utf8)) == [.up])
    }

    @Test func aScriptedSceneDrawsTheFrameTheCellsAndTheStatus() async throws {
        // Given a steady scroll half a second in, on a fixed 400 ms network
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(400)))
        (settings.script, settings.duration) = (.steady, 1.2)
        let scene = try DemoScene(settings: settings)
        var screen: [String] = []
        _ = try await scene.play { frame in
            if abs(frame.time - 1.2) < 1e-9 {
                let geometry = ScreenGeometry(columns: 100, rows: 40)
                let model = ScreenModel(columns: 100, rows: 40, layout: .grid, viewport: scene.view.bounds,
                                        title: "title", status: scene.status, footer: "keys")
                screen = ScreenRenderer(colorMode: .none).render(model, tiles: scene.tiles(in: geometry.drawnRect(for: scene.view.bounds)))
            }
            return true
        }
        // Then the screen has 40 lines of 100 columns, a framed viewport, and cells in each state
        #expect(screen.count == 40)
        #expect(screen.allSatisfy { $0.count == 100 })
        let text = screen.joined(separator: "\n")
        #expect(screen.filter { $0.hasPrefix(" ┌") }.count == 1)
        #expect(screen.filter { $0.hasPrefix(" └") }.count == 1)
        #expect(text.contains("◌ loading") || text.contains("✓ cached"))
        #expect(text.contains("offset 0 pt") == false)
        #expect(screen[37].hasPrefix("offset "))
        #expect(screen[37].contains("visible #"))
        #expect(screen[39].hasPrefix("keys"))
        // And the colour renderer writes escape codes for the same screen
        let model = ScreenModel(columns: 60, rows: 20, layout: .grid, viewport: scene.view.bounds,
                                title: "t", status: scene.status, footer: "k")
        let coloured = ScreenRenderer(colorMode: .trueColor).render(model, tiles: scene.tiles(in: scene.view.bounds))
        #expect(coloured.joined().contains("\u{1B}[0;48;2;"))
    }
}
