/// The standard scenarios, each on the grid of Apple's sample and on the tutorial's list.
public enum StandardSuite {
    /// The kinds of motion in the suite.
    public enum Kind: String, Sendable, CaseIterable {
        /// Reading slowly: short drags at 120 pt/s with pauses.
        case slowReading = "slow"
        /// Steady scrolling at 800 pt/s.
        case steady
        /// Eight flings at 3,000 pt/s, each followed by a short look.
        case repeatedFlings = "flings"
        /// One long fling at 12,000 pt/s.
        case longFling = "long-fling"
        /// Scrolling down and back up three times.
        case backAndForth = "back-and-forth"
        /// Jumps to distant items, each followed by a short read.
        case jumps
    }

    /// Every scenario: each kind on a grid, then on a list.
    public static var all: [Scenario] {
        ScenarioLayout.Kind.allCases.flatMap { layout in Kind.allCases.map { scenario($0, layout: layout) } }
    }

    /// One scenario of the suite.
    public static func scenario(_ kind: Kind, layout: ScenarioLayout.Kind) -> Scenario {
        let layoutValue: ScenarioLayout = layout == .grid ? .grid() : .list()
        let viewport: Viewport = layout == .grid ? .seedGrid : .phoneList
        let gestures: [ScrollGesture]
        switch kind {
        case .slowReading:
            gestures = (0..<8).flatMap { _ in [ScrollGesture.drag(speed: 120, duration: 2.5), .pause(duration: 1.5)] }
        case .steady:
            gestures = [.pause(duration: 0.5), .drag(speed: 800, duration: 15)]
        case .repeatedFlings:
            gestures = (0..<8).flatMap { _ in [ScrollGesture.fling(velocity: 3_000), .pause(duration: 0.8)] }
        case .longFling:
            gestures = [.pause(duration: 0.5), .fling(velocity: 12_000), .pause(duration: 1.5)]
        case .backAndForth:
            gestures = (0..<3).flatMap { _ in
                [ScrollGesture.drag(speed: 600, duration: 4), .pause(duration: 0.3), .drag(speed: -600, duration: 2.5), .pause(duration: 0.3)]
            }
        case .jumps:
            let targets = [2_000, 7_500, 400, 5_000, 9_000]
            gestures = targets.flatMap { [ScrollGesture.jump(item: $0), .pause(duration: 0.5), .drag(speed: 200, duration: 2)] }
        }
        return Scenario(name: "\(kind.rawValue)-\(layout.rawValue)", layout: layoutValue, viewport: viewport, motion: .gestures(gestures))
    }
}
