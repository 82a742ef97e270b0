import Foundation
import PrefetchKit
import PrefetchTesting
import Testing
@testable import PrefetchSwiftUI

/// SwiftUI lists whose rows differ in height (issue #35): `ListPrefetcher` plans from the rows
/// measured so far and the content length SwiftUI reports, not from one `rowLength`.
@MainActor
@Suite("SwiftUI rows of different heights")
struct VariableRowsTests {
    /// The true layout: rows 0–40 are 200 pt, the rest 88 pt, one column.
    static func trueLength(_ row: Int) -> Double { row <= 40 ? 200 : 88 }
    static func trueStart(_ row: Int) -> Double {
        let tall = Double(min(row, 41)), short = Double(max(row - 41, 0))
        return tall * 200 + short * 88
    }

    @Test func theControllersVisibleRowsAreTheRowsOnScreenOnEveryFrame() throws {
        // Given a list of 1,000 rows the app estimates at 88 pt, whose first 41 rows grew to 200 pt
        let clock = ManualClock()
        let fetcher = try AsyncFetcher<Int, Int>(configuration: FetcherConfiguration(maxConcurrentLoads: 4), clock: clock,
                                                 loader: ScriptedLoader<Int, Int>())
        let time = FrameClock()   // a main-actor box: the prefetcher reads it as its clock
        let prefetcher = ListPrefetcher(fetcher: fetcher, policy: PrefetchPolicies.adaptive, admission: RowAdmission(),
                                        now: { time.now }, sleep: { try await clock.sleep(until: clock.now.advanced(by: $0)) })
        var problems: [String] = []
        prefetcher.onProblem = { problems.append($0.message) }
        prefetcher.use(RowsLayout(items: Array(0..<1_000), rowLength: 88, columns: 1, spacing: 0, padding: 0))
        let content = Self.trueStart(1_000), viewport = 1_000.0
        var measured = Set<Int>()
        var mismatches: [String] = []
        // When the user drags from the top to 5,800 (rows 29–33 on screen) at 2,000 pt/s, 60 frames a
        // second: each frame SwiftUI lays out the rows coming on screen (the app reports their
        // heights, as `onGeometryChange` tells it), then reports the scroll geometry
        prefetcher.phaseChanged(to: .interacting)
        for frame in 0...174 {
            let offset = min(Double(frame) * 2_000 / 60, 5_800)
            let onScreen = (0..<60).filter { Self.trueStart($0) < offset + viewport && Self.trueStart($0) + Self.trueLength($0) > offset }
            for row in onScreen where measured.insert(row).inserted { prefetcher.rowMeasured(row, length: Self.trueLength(row)) }
            time.now += 1.0 / 60
            prefetcher.scrolled(ScrollValues(offset: offset, viewportLength: viewport, contentLength: content))
            // Then the rows the controller plans as on screen (its viewport through the geometry it
            // plans with) are the rows on screen, every frame after the first
            let viewportNow = try #require(prefetcher.adapter.lastState).viewport
            var visible = Set<Int>()
            prefetcher.geometry.forEachItem(meeting: viewportNow) { item, _ in visible.insert(item) }
            if frame > 0, visible != Set(onScreen) {
                mismatches.append("frame \(frame) at \(offset): visible \(visible.sorted()), on screen \(onScreen)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) frames off, first: \(mismatches.prefix(2))")
        // At rest at 5,800 the rows on screen, 29–33, are the ones the controller requests at visible priority
        time.now += 0.01
        prefetcher.phaseChanged(to: .idle)
        let last = Set(prefetcher.adapter.controller.requestedItems.filter { $0.priority.level == .visible }.map(\.item))
        #expect(last == Set(29...33))
        // A length that is not a length is refused, naming it
        prefetcher.rowMeasured(3, length: -.infinity)
        #expect(problems == ["ListPrefetcher.rowMeasured: row length -inf must be finite and at least 0"])
        fetcher.shutdown()
    }

    @Test(arguments: [1, 3])
    func theGeometryMatchesTheRowsLaidOutOneByOne(columns: Int) {
        // Sweep: random measurements and reported content lengths; the geometry against a row-by-row sum
        var random = SplitMix64(seed: 35 + UInt64(columns))   // seeded: the same sweep every run
        for round in 0..<60 {
            let count = Int.random(in: 0...70, using: &random)
            let spacing = [0.0, 8][round % 2], padding = [0.0, 24][round / 2 % 2], estimate = Double.random(in: 10...120, using: &random)
            var geometry = MeasuredRowsGeometry(items: Array(0..<count), estimate: estimate, columns: columns, spacing: spacing, padding: padding)
            let rows = count / columns + (count % columns == 0 ? 0 : 1)
            var lengths = [Double?](repeating: nil, count: rows)
            var reported: Double?
            for _ in 0..<25 {
                if Bool.random(using: &random), count > 0 {
                    let item = Int.random(in: 0..<count, using: &random), length = Double.random(in: 0...300, using: &random).rounded()
                    geometry.measure(item, length: length)
                    let row = item / columns
                    lengths[row] = columns > 1 ? max(length, lengths[row] ?? 0) : length
                } else {
                    let content = Double.random(in: 0...20_000, using: &random).rounded()
                    _ = geometry.report(contentLength: content)
                    reported = content
                }
                // The model: measured rows keep their lengths; the others share what the reported content leaves
                let unmeasured = lengths.filter { $0 == nil }.count
                var share = estimate
                if unmeasured > 0, let reported {
                    let left = (reported - padding - Double(max(rows - 1, 0)) * spacing - lengths.compactMap { $0 }.reduce(0, +)) / Double(unmeasured)
                    if left > 0 { share = left }
                }
                var starts: [Double] = [], position = padding
                for row in 0..<rows { starts.append(position); position += (lengths[row] ?? share) + spacing }
                for item in 0..<count {
                    let row = item / columns, length = lengths[row] ?? share
                    let expected = length > 0 ? starts[row]..<(starts[row] + length) : nil
                    let got = geometry.extent(of: item)
                    #expect(got.map { abs($0.lowerBound - starts[row]) < 1e-6 && abs($0.upperBound - (starts[row] + length)) < 1e-6 }
                            ?? (expected == nil), "round \(round), item \(item): \(String(describing: got)) vs \(String(describing: expected))")
                }
                let low = Double.random(in: -100...max(position, 1), using: &random), range = low..<(low + Double.random(in: 1...900, using: &random))
                var seen: [Int] = []
                geometry.forEachItem(meeting: range) { item, _ in seen.append(item) }
                let expectedItems = (0..<count).filter { item in
                    let row = item / columns, length = lengths[row] ?? share
                    return length > 0 && starts[row] < range.upperBound && starts[row] + length > range.lowerBound
                }
                #expect(seen == expectedItems, "round \(round), range \(range)")
            }
        }
    }
}
