import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchUIKit

// Issue #35 item 7: "a drag starting from rest drops the resting look-ahead and requests it again
// row by row". Replayed as UIKit sends it: the view rests with its plan; the pan begins
// (`scrollViewWillBeginDragging`, `isDragging`); each 60 Hz step moves the offset a few points and
// is heard by the offset and the bounds observers; self-sizing cells grow the content between
// steps. Counted: rows of the resting look-ahead withdrawn and later requested again. The planner
// keeps the stretch the resting plan held for the whole drag (`PrefetchPlanner.carriedIntoDrag`).

@MainActor
@Suite("UIKit: a drag starting from rest")
struct DragFromRestTests {
    struct Drag: Sendable, CustomTestStringConvertible {
        var speed: Double          // points per second; negative drags towards the top
        var firstStep: Double?     // a tiny first movement, in points
        var growths: Int           // content-size changes during the drag
        var jitter = 0.0           // the finger's speed alternately this share above and below `speed`
        var testDescription: String { "\(speed) pt/s ± \(Int(jitter * 100)) %, first step \(firstStep ?? 0), \(growths) growths" }
    }

    nonisolated static let drags: [Drag] = [300, 500, 800, -300, -500, -800].flatMap { speed in
        [Drag(speed: speed, firstStep: nil, growths: 0), Drag(speed: speed, firstStep: 0.5, growths: 0),
         Drag(speed: speed, firstStep: nil, growths: 15)]
    } + [300, -300, 450, -450].map { Drag(speed: $0, firstStep: nil, growths: 0, jitter: 0.03) }

    @Test(arguments: drags)
    func keepsTheRestingLookAhead(_ drag: Drag) {
        let rig = UIKitRig()
        rig.step(to: 20_000)
        rig.step(to: 20_000, after: 0.5)
        rig.prefetcher.refresh()
        let lookAhead = Set(rig.target.requested.filter { $0.value.level < .visible }.keys)
        #expect(!lookAhead.isEmpty)
        let before = rig.target.updates.count
        rig.surface.events?.dragBegan()
        var offset = 20_000.0
        if let first = drag.firstStep {
            offset += drag.speed < 0 ? -first : first
            rig.step(to: offset, dragging: true)
        }
        var rows = rig.surface.rowCount
        for frame in 1...60 {
            offset += drag.speed * (1 + (frame % 2 == 0 ? drag.jitter : -drag.jitter)) / 60
            rig.step(to: offset, dragging: true)
            if frame % 4 == 0, frame / 4 <= drag.growths {
                rig.clock.now += 0.002
                rows += 1
                rig.contentSizeChanged(rows: rows)
            }
        }
        var withdrawn = Set<IndexPath>(), churned = Set<IndexPath>()
        for update in rig.target.updates[before...] {
            for item in update.requests.map(\.item) where withdrawn.contains(item) && lookAhead.contains(item) { churned.insert(item) }
            withdrawn.formUnion(update.withdrawals)
        }
        if ProcessInfo.processInfo.environment["DRAG_TRACE"] != nil {
            print("rest look-ahead:", lookAhead.map { $0[1] }.sorted())
            for (i, update) in rig.target.updates[before...].enumerated() where !update.withdrawals.isEmpty || !update.requests.isEmpty {
                print(i, "-", update.withdrawals.map { $0[1] }.sorted(), "+", update.requests.map { "\($0.item[1])@\($0.priority.level.rawValue)" })
            }
        }
        // At exactly the adaptive policy's slow-drag speed (half a viewport per second: 300 pt/s
        // here) the speed read frame by frame falls on both sides of it; the band the policy keeps
        // behind fades with speed instead of switching off there, so the row just behind the
        // viewport (199 going down, 206 going up) stays too. Nothing churns.
        #expect(churned.isEmpty, "look-ahead rows withdrawn then requested again: \(churned.map { $0[1] }.sorted())")
        #expect(rig.problems.isEmpty)
    }
}
