import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

/// What `Fuzz/Sources/FuzzScrollAdapter` found, replayed: each test failed (trapped) before its fix.
@MainActor
@Suite struct FuzzFindingTests {
    @Test func aBadReadingDuringAnUnannouncedAnimationIsAnsweredNotTrapped() {
        // Given a list at rest at 0, then three offsets 50 pt apart a display frame apart with no
        // finger and no fling (an animation nobody announced: the prefetcher holds its first plan)
        let rig = UIKitRig(surface: ScriptedSurface(offset: 0, viewport: 600, rows: 100))
        rig.step(to: 0)
        for offset in [50.0, 100, 150] { rig.step(to: offset) }
        // When the view reports a viewport of -5 pt, or an offset that is not a number, and a cell asks its priority
        rig.surface.reading?.viewportLength = -5
        let negative = rig.prefetcher.priority(at: IndexPath(indexes: [0, 3]))
        rig.surface.reading?.viewportLength = 600
        rig.surface.reading?.offset = .nan
        let notANumber = rig.prefetcher.priority(at: IndexPath(indexes: [0, 3]))
        // Then it gets an answer (the controller's), and the prefetcher does not trap
        #expect([FetchPriority.Level.visible, .prefetch, .speculative, .background].contains(negative.level))
        #expect([FetchPriority.Level.visible, .prefetch, .speculative, .background].contains(notANumber.level))
    }
}
