import Foundation

/// What a user would see, measured as the simulator measures it (see
/// ``PrefetchSimulation/SimulationResult``): the display-ready rate over cell appearances after
/// the first screen, and the wait of each such appearance until its data arrived (0 when ready).
@MainActor
package final class DemoMetrics {
    /// The time now, in seconds: virtual in scripted runs, real in the interactive one.
    package var now: () -> Double
    /// Whether appearances count yet: the first screen appears before anything could be
    /// prefetched, so no policy can change it.
    package var isCounting = false

    private(set) var appearances = 0
    private(set) var readyAppearances = 0
    private var waits: [Double] = []
    private var blankSince: [Int: (start: Double, wait: Int)] = [:]
    private(set) var everDisplayed = Set<Int>()

    package init(now: @escaping () -> Double) {
        self.now = now
    }

    /// An item's cell came on screen, with or without its data.
    package func willDisplay(item: Int, hasData: Bool) {
        everDisplayed.insert(item)
        guard isCounting else { return }
        appearances += 1
        waits.append(0)
        if hasData {
            readyAppearances += 1
        } else {
            blankSince[item] = (now(), waits.count - 1)
        }
    }

    /// An item's cell left the screen: a blank wait ends there.
    package func didEndDisplaying(item: Int) {
        endBlank(item)
    }

    /// An item's displayed cell received its data.
    package func dataArrived(item: Int) {
        endBlank(item)
    }

    /// Ends every wait still open (at the end of a run).
    package func finish() {
        for item in blankSince.keys.sorted() { endBlank(item) }
    }

    private func endBlank(_ item: Int) {
        guard let blank = blankSince.removeValue(forKey: item) else { return }
        waits[blank.wait] = now() - blank.start
    }

    /// The share of counted appearances whose data was there, from 0 to 1 (1 before any).
    package var displayReadyRate: Double {
        appearances == 0 ? 1 : Double(readyAppearances) / Double(appearances)
    }

    /// The mean wait per counted appearance, zeros included, in ms (open waits count so far).
    package var visibleWaitMeanMs: Double {
        let current = currentWaits
        return current.isEmpty ? 0 : current.reduce(0, +) / Double(current.count) * 1000
    }

    /// The 95th percentile (nearest rank) of the waits, in ms.
    package var visibleWaitP95Ms: Double {
        let sorted = currentWaits.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((Double(sorted.count) * 0.95).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)] * 1000
    }

    private var currentWaits: [Double] {
        var current = waits
        let t = now()
        for blank in blankSince.values { current[blank.wait] = t - blank.start }
        return current
    }
}
