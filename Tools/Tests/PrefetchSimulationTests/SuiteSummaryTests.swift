import Foundation
import Testing
@testable import PrefetchSimulation

@Suite struct SuiteSummaryTests {
    /// A result with the given display-ready rate (and a few other figures) on a scenario.
    static func result(_ scenario: String, _ policy: String, ready: Double, blank: Double = 0, wasted: Int = 0) -> SimulationResult {
        var r = SimulationResult(scenario: scenario, policy: policy)
        r.displayed = 100
        r.displayReadyRate = ready
        r.blankCellSeconds = blank
        r.loadsWasted = wasted
        r.bytesWasted = wasted * 1_000
        r.duration = 10
        return r
    }

    static let results = [
        result("a", "adaptive", ready: 0.45, blank: 2, wasted: 3),
        result("a", "clairvoyant", ready: 0.9),
        result("a", "clairvoyant-1s", ready: 0.5),
        result("b", "adaptive", ready: 0.8, blank: 1, wasted: 4),
        result("b", "clairvoyant", ready: 0.8),
        result("b", "clairvoyant-1s", ready: 1),
    ]

    @Test func theTotalsAddUpAndTheSharesAreMeansOfRatios() throws {
        let adaptive = try #require(SuiteSummary.rows(Self.results).first { $0.policy == "adaptive" })
        #expect(abs(adaptive.meanDisplayReadyRate - 0.625) < 1e-12)
        #expect(adaptive.blankCellSeconds == 3)
        #expect(adaptive.loadsWasted == 7)
        #expect(adaptive.bytesWasted == 7_000)
        // (0.45 / 0.9 + 0.8 / 0.8) / 2 and (0.45 / 0.5 + 0.8 / 1) / 2, by hand.
        #expect(abs(try #require(adaptive.shareOfClairvoyant) - 0.75) < 1e-12)
        #expect(abs(try #require(adaptive.shareOfClairvoyant1s) - 0.85) < 1e-12)
    }

    @Test func eachScenarioShowsItsOwnSharesAndTheLowest() throws {
        let text = try #require(SuiteSummary.renderShares(Self.results))
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 5)  // title, header, a, b, lowest
        #expect(lines[1] == ["scenario", "adaptive"])
        #expect(lines[2] == ["a", "0.50/0.90"])
        #expect(lines[3] == ["b", "1.00/0.80"])
        // The lowest per reference, each from its own scenario.
        #expect(lines[4] == ["lowest", "0.50/0.80"])
    }

    @Test func withoutAReferenceThereIsNoShareTableAndAMissingOneShowsADash() throws {
        let noReference = Self.results.filter { $0.policy == "adaptive" }
        #expect(SuiteSummary.renderShares(noReference) == nil)
        let fullOnly = Self.results.filter { $0.policy != "clairvoyant-1s" }
        let text = try #require(SuiteSummary.renderShares(fullOnly))
        #expect(text.contains("0.50/-"))
        #expect(SuiteSummary.share(of: "adaptive", in: "a", reference: "clairvoyant-1s", fullOnly) == nil)
    }
}

@Suite struct BeatenReferenceTests {
    func result(_ scenario: String, _ policy: String, ready: Double, blank: Double) -> SimulationResult {
        var r = SimulationResult(scenario: scenario, policy: policy)
        r.displayReadyRate = ready
        r.blankCellSeconds = blank
        return r
    }

    @Test func everyRunThatBeatsAReferenceIsFlaggedByNameAndMetric() throws {
        let results = [
            result("a", "clairvoyant", ready: 0.9, blank: 2), result("a", "adaptive", ready: 0.95, blank: 1.5),
            result("a", "uikitLike", ready: 0.5, blank: 9), result("b", "clairvoyant", ready: 0.9, blank: 2),
            result("b", "adaptive", ready: 0.8, blank: 1.9),
        ]
        let text = try #require(SuiteSummary.renderBeatenReferences(results))
        #expect(text.contains("a: adaptive beats clairvoyant: ready 95.0% > 90.0%, blank 1.50 s < 2.00 s"))
        #expect(text.contains("b: adaptive beats clairvoyant: blank 1.90 s < 2.00 s"))
        #expect(!text.contains("uikitLike"))
        #expect(SuiteSummary.renderBeatenReferences(Array(results[2...2])) == nil)
    }
}
