import Foundation
import PrefetchKit
@testable import PrefetchDemoKit
@testable import PrefetchSimulation
import PrefetchToolSupport
import Testing

/// The keys for what apps do (issue #35): `a`, an animated scroll to a far item, and `n`, new
/// items arriving above; both go through the app's path (its prefetcher hears them first).
@Suite("The moment keys")
@MainActor
struct DemoMomentKeyTests {
    private func scene() throws -> (DemoScene, KeyInput) {
        var settings = DemoSettings()
        settings.latency = try LatencyModel(.fixed(.milliseconds(200)))
        let scene = try DemoScene(settings: settings)
        scene.app.step(to: 0)
        return (scene, KeyInput(terminal: Terminal(), backend: scene.backend, itemCount: scene.models.count))
    }

    @Test func keysParseAAndN() {
        #expect(Key.parse(Array("aAnN".utf8)) == [.animatedScroll, .animatedScroll, .newAbove, .newAbove])
        #expect(ScreenPainter.interactiveKeys.contains("a animated scroll") && ScreenPainter.interactiveKeys.contains("n new above"))
    }

    @Test func aScrollsWithAnimationToAFarItemTheControllerPlansFirst() throws {
        let (scene, keys) = try scene()
        let app = scene.app
        let count = scene.models.count
        let target = KeyInput.farItem(from: 0, count: count)
        try keys.apply([.animatedScroll], to: app.view, at: 0.1)
        // The destination is requested at visible priority before the first animated frame.
        #expect(app.prefetcher?.controller.requestedPriority(of: IndexPath(indexes: [0, target]))?.level == .visible)
        #expect(keys.message?.contains("#\(target)") == true)
        for frame in 1...30 { app.step(to: 0.1 + Double(frame) / 60) }
        #expect(app.visibleItems.contains(target))
        #expect(app.prefetchProblems.isEmpty)
    }

    @Test func nBringsNewItemsAboveAndTheRowsOnScreenStayPut() throws {
        let (scene, keys) = try scene()
        let app = scene.app
        app.view.contentOffset = CGPoint(x: 0, y: 2_000)
        app.step(to: 0.1)
        let titles = { app.visibleItems.compactMap { scene.models.model(at: $0 + app.indexBase)?.title } }
        let before = titles()
        scene.updatePlan()
        let count = scene.models.count
        try keys.apply([.newAbove], to: app.view, at: 0.2)
        app.step(to: 0.2 + 1.0 / 60)
        #expect(app.indexBase == -KeyInput.arrivals)
        #expect(scene.models.count == count + KeyInput.arrivals)
        #expect(titles() == before)
        // The screen's plan tracker follows the shift: the requests that moved down by 20 view
        // indexes are not drawn as withdrawn (it counted all 20 before it followed indexBase).
        #expect(scene.updatePlan().withdrawn < KeyInput.arrivals)
        #expect(scene.models.model(at: -1)?.title == "New 1")
        #expect(keys.message?.contains("new items arrived above") == true)
        #expect(app.prefetchProblems.isEmpty)
    }
}
