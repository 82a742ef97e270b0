import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

/// A vertical compositional layout with a horizontal section, as UIKit lays it out: section 0 holds
/// 20 rows of 100 pt, section 1 a carousel 300 pt high at 2,000 pt whose 100 cards are 195 pt wide
/// with 10 pt between them (two on a 400 pt wide screen), section 2 holds 200 rows after it. Every
/// card lies at the carousel's height, so along the list's axis all 100 meet the viewport; across
/// it the carousel shows the part `carouselWindow` says (what its visible items span in UIKit).
@MainActor
final class CarouselSurface: ScrollSurface {
    var reading: SurfaceReading? = SurfaceReading(offset: 0, viewportLength: 600, contentLength: 2_300 + 200 * 100)
    var carouselWindow = 0.0..<400
    private(set) var events: SurfaceEvents?

    func reading(along axis: ScrollAxis) -> SurfaceReading? { reading }

    /// The frame of a cell: its extent down the list and across it.
    func frame(_ path: IndexPath) -> (down: Range<Double>, across: Range<Double>)? {
        guard path.count == 2 else { return nil }
        switch (path[0], path[1]) {
        case (0, 0..<20): return (Double(path[1]) * 100..<Double(path[1] + 1) * 100, 0..<400)
        case (1, 0..<100): return (2_000..<2_300, Double(path[1]) * 205..<Double(path[1]) * 205 + 195)
        case (2, 0..<200): return (2_300 + Double(path[1]) * 100..<2_400 + Double(path[1]) * 100, 0..<400)
        default: return nil
        }
    }

    func cells(meeting range: Range<Double>, along axis: ScrollAxis) -> [(IndexPath, Range<Double>)] {
        let all = (0..<20).map { IndexPath(indexes: [0, $0]) } + (0..<100).map { IndexPath(indexes: [1, $0]) }
            + (0..<200).map { IndexPath(indexes: [2, $0]) }
        return all.compactMap { path in frame(path).flatMap { $0.down.overlaps(range) ? (path, $0.down) : nil } }
    }
    func cellExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { frame(indexPath)?.down }
    func crossExtent(at indexPath: IndexPath, along axis: ScrollAxis) -> Range<Double>? { frame(indexPath)?.across }
    func visibleCrossExtent(ofSection section: Int, along axis: ScrollAxis) -> Range<Double>? { section == 1 ? carouselWindow : nil }
    func animateScroll(to offset: Double, along axis: ScrollAxis) {}
    func stopDataPrefetching() {}
    func announcePageScrolled(_ status: String) {}
    func observeScrolling(_ events: SurfaceEvents) -> @MainActor () -> Void {
        self.events = events
        return {}
    }
}

@MainActor
@Suite("UIKit: a horizontal section in a vertical list")
struct OrthogonalSectionTests {
    private static func cards(_ items: some Sequence<IndexPath>) -> Set<Int> { Set(items.filter { $0[0] == 1 }.map { $0[1] }) }

    @Test func aCarouselsCardsCountAsVisibleOnlyWhereTheCarouselShowsThem() {
        let surface = CarouselSurface()
        let clock = FrameClock()
        let target = RecordingPrefetchTarget<IndexPath>()
        let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: .indexPaths,
                                              adapter: ScrollAdapter(controller: PrefetchController<IndexPath>(target: target)),
                                              axis: .vertical, now: { clock.now })
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        // Given the list at rest at 1,800: rows 18-19 of section 0, the carousel, the first row after it
        surface.reading?.offset = 1_800
        surface.events?.changed(false)
        let visible = Set(target.requested.filter { $0.value.level == .visible }.keys)
        // Then of the carousel's 100 cards only the two it shows are requested at visible priority,
        // and no card beyond its edges is requested at all (nothing observes its own scrolling)
        #expect(Self.cards(visible) == [0, 1], "\(Self.cards(visible).sorted())")
        #expect(Self.cards(target.requested.keys) == [0, 1], "\(Self.cards(target.requested.keys).sorted())")
        #expect(visible.contains(IndexPath(indexes: [0, 18])) && visible.contains(IndexPath(indexes: [2, 0])))
        // A card's own cell, on screen inside the carousel, asks at visible priority
        #expect(prefetcher.priority(at: IndexPath(indexes: [1, 1])).level == .visible)

        // When the user scrolled the carousel to cards 10-11 and the app says so (from the section's
        // visibleItemsInvalidationHandler)
        surface.carouselWindow = 2_050..<2_450
        clock.now += 0.5
        prefetcher.orthogonalSectionScrolled()
        // Then those two are the carousel's visible cards, and the two it left are withdrawn
        let after = Set(target.requested.filter { $0.value.level == .visible }.keys)
        #expect(Self.cards(after) == [10, 11], "\(Self.cards(after).sorted())")
        #expect(Self.cards(target.requested.keys) == [10, 11])
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func aCarouselAheadOfTheScreenIsPlannedFromWhereItStarts() {
        // The carousel below the screen, not shown yet: UIKit reports no visible item of it, and
        // the surface answers the bounds' width (where it starts); the look-ahead takes its first cards
        let surface = CarouselSurface()
        let target = RecordingPrefetchTarget<IndexPath>()
        let prefetcher = ScrollViewPrefetcher(surface: surface, lookup: .indexPaths,
                                              adapter: ScrollAdapter(controller: PrefetchController<IndexPath>(target: target)),
                                              axis: .vertical, now: { 1 })
        surface.reading?.offset = 1_200
        surface.events?.changed(false)
        #expect(Self.cards(target.requested.keys) == [0, 1], "\(Self.cards(target.requested.keys).sorted())")
        #expect(target.requested.keys.allSatisfy { $0[0] != 1 || target.requested[$0]?.level != .visible })
        _ = prefetcher
    }
}
