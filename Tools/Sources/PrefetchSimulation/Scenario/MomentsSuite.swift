/// What apps do besides a finger's drag and fling (issue #35), each on the tutorial's list and on
/// the grid of Apple's sample: `prefetch-bench run --suite moments`.
///
/// A separate suite, so the standard suite's summary numbers stay comparable with those measured
/// before it. Every programmatic moment goes through the app's path: the app tells its
/// `ScrollViewPrefetcher` where it scrolls (`willScroll(to:animated:)`), moves the view (UIKit's
/// ease-in-out, 0.3 s), and forwards the animation's end (`didEndScrollingAnimation()`).
public enum MomentsSuite {
    /// The moments in the suite.
    public enum Kind: String, Sendable, CaseIterable {
        /// Reading, then animated scrolls to far items (`scrollToItem(at:at:animated: true)`) and back.
        case animatedScroll = "animated-scroll"
        /// Scrolling far down, then a status-bar tap (animated to the top), twice.
        case statusBarTap = "status-bar-tap"
        /// Reading, then instant restores to saved offsets (`setContentOffset(_:animated: false)`).
        case restore
        /// Flings with a rotation mid-fling and one at rest: the viewport's size changes.
        case rotation
        /// A feed's new posts and a chat's older messages arrive above the screen while the user
        /// drags and at rest, and old ones are deleted: the app keeps the user's place.
        case insertsAbove = "inserts-above"
        /// Drags past the top (a pull to refresh) and past the bottom, on a view that rubber-bands
        /// as UIKit's does by default (a trace's `bounces`), with flings that stop at the ends.
        case rubberBand = "rubber-band"
        /// A feed of text posts and photo posts, rows of different heights (60 to 420 pt, the
        /// normal case in SwiftUI): reading, drags, flings, a drag back, a jump far down and
        /// scrolling back up over rows never laid out. A list only: the grid's items share one size.
        case variableRows = "variable-rows"
        /// The same feed and motion as ``variableRows``, its rows sizing themselves as a UIKit
        /// app's self-sizing cells do (a trace's `layout.selfSizing`): each row is laid out at the
        /// typical height until it comes on screen, so the content size changes as rows are
        /// measured, and the offset too when rows above the screen are (scrolling up after the
        /// jump). Under the SwiftUI toolkit it plays as ``variableRows`` does: a lazy stack
        /// estimates rows either way. A list only.
        case selfSizing = "self-sizing"

        /// Whether the moment is played on `layout`: every moment on a list; on the grid, all but
        /// ``variableRows`` and ``selfSizing`` (a flow layout of one item size has no rows of
        /// their own heights).
        public func applies(to layout: ScenarioLayout.Kind) -> Bool {
            layout == .list || (self != .variableRows && self != .selfSizing)
        }
    }

    /// Every scenario: each moment on a list, then each on a grid (``Kind/variableRows`` on the list only).
    public static var all: [Scenario] {
        [ScenarioLayout.Kind.list, .grid].flatMap { layout in Kind.allCases.filter { $0.applies(to: layout) }.map { scenario($0, layout: layout) } }
    }

    /// One scenario of the suite; ``Kind/variableRows`` and ``Kind/selfSizing`` are lists whatever `layout` says.
    public static func scenario(_ kind: Kind, layout: ScenarioLayout.Kind) -> Scenario {
        let layoutValue: ScenarioLayout = layout == .grid ? .grid() : .list()
        let viewport: Viewport = layout == .grid ? .seedGrid : .phoneList
        // Items about 90,000 points down, and a place about 40,000 points down, in either layout.
        let perPoint = layout == .grid ? 2.0 / 110 : 1.0 / 66
        let far = Int(90_000 * perPoint), middle = Int(40_000 * perPoint)
        let gestures: [ScrollGesture]
        switch kind {
        case .animatedScroll:
            gestures = [
                .pause(duration: 0.5), .drag(speed: 400, duration: 2), .pause(duration: 0.5),
                .animate(item: far, duration: ScrollGesture.defaultAnimationDuration), .pause(duration: 1.5),
                .drag(speed: 300, duration: 2), .pause(duration: 0.5),
                .animate(item: middle, duration: 0.5), .pause(duration: 1.5),
                .animate(item: 20, duration: ScrollGesture.defaultAnimationDuration), .pause(duration: 1.5),
            ]
        case .statusBarTap:
            let down = (0..<6).flatMap { _ in [ScrollGesture.fling(velocity: 9_000), .pause(duration: 0.3)] }
            gestures = [.pause(duration: 0.5)] + down + [.statusBarTap, .pause(duration: 1.5), .drag(speed: 300, duration: 2)]
                + down + [.statusBarTap, .pause(duration: 1.5)]
        case .restore:
            gestures = [
                .pause(duration: 0.5), .drag(speed: 300, duration: 3), .pause(duration: 1),
                .restore(offset: 40_000), .pause(duration: 1.5), .drag(speed: 300, duration: 2), .pause(duration: 1),
                .restore(offset: 2_000), .pause(duration: 1.5), .drag(speed: -200, duration: 2), .pause(duration: 1),
            ]
        case .rotation:
            // The phone turned on its side; the grid's view (a part of an iPad's screen) turns wider: 2 columns become 4.
            let landscape = layout == .grid ? Viewport(width: 700, height: 300) : Viewport(width: viewport.height, height: viewport.width)
            gestures = [
                .pause(duration: 0.5), .flingFor(velocity: 6_000, duration: 0.4), .rotate(width: landscape.width, height: landscape.height),
                .pause(duration: 2), .drag(speed: 300, duration: 2), .pause(duration: 0.5),
                .rotate(width: viewport.width, height: viewport.height), .pause(duration: 1), .fling(velocity: 4_000), .pause(duration: 1),
            ]
        case .insertsAbove:
            gestures = [
                .pause(duration: 0.5), .drag(speed: 500, duration: 3), .insertAbove(count: 50, after: 1), .insertAbove(count: 20, after: 2),
                .pause(duration: 1), .insertAbove(count: 30, after: nil), .pause(duration: 1),
                .fling(velocity: 3_000), .deleteAbove(count: 40, after: 0.3), .pause(duration: 0.5),
                .drag(speed: -400, duration: 2), .insertAbove(count: 10, after: 0.5), .pause(duration: 1),
            ]
        case .rubberBand:
            // A short feed (150 items), so flings reach both ends: pulls past the top (a pull to
            // refresh) and past the bottom, each after reading or flinging there.
            gestures = [
                .pause(duration: 0.5), .drag(speed: -700, duration: 0.6), .pause(duration: 1),
                .drag(speed: 400, duration: 2), .fling(velocity: 4_000), .pause(duration: 0.5), .fling(velocity: 6_000),
                .pause(duration: 0.5), .fling(velocity: 6_000), .drag(speed: 800, duration: 0.5), .pause(duration: 1),
                .drag(speed: -300, duration: 2), .fling(velocity: -6_000), .pause(duration: 0.3), .fling(velocity: -8_000),
                .drag(speed: -900, duration: 0.4), .pause(duration: 1.5),
            ]
        case .variableRows, .selfSizing:
            return variableRows(selfSizing: kind == .selfSizing)
        }
        let content = kind == .rubberBand ? (layout == .grid ? ScenarioLayout.grid(itemCount: 150) : .list(itemCount: 150)) : layoutValue
        return Scenario(name: "\(kind.rawValue)-\(layout.rawValue)", layout: content, viewport: viewport, motion: .gestures(gestures),
                        bounces: kind == .rubberBand)
    }

    /// ``Kind/variableRows`` (or ``Kind/selfSizing``): 10,000 rows of a feed
    /// (``ScenarioLayout/feed(itemCount:seed:)``, mean about 206 pt) in a phone's list.
    private static func variableRows(selfSizing: Bool) -> Scenario {
        let layout = ScenarioLayout.feed()
        // The row about 90,000 points down.
        var far = 0, top = 0.0
        while far < layout.itemCount - 1, top < 90_000 {
            top += layout.rowHeights?.height(ofItem: far) ?? layout.itemHeight
            far += 1
        }
        let gestures: [ScrollGesture] = [
            // Reading: slow drags and pauses.
            .pause(duration: 0.5), .drag(speed: 150, duration: 3), .pause(duration: 1), .drag(speed: 300, duration: 2), .pause(duration: 0.5),
            // Flings down the feed, then a drag back over rows already laid out.
            .fling(velocity: 4_000), .pause(duration: 0.5), .fling(velocity: 8_000), .pause(duration: 0.3), .fling(velocity: 10_000),
            .pause(duration: 0.3), .fling(velocity: 10_000), .pause(duration: 1), .drag(speed: -400, duration: 1.5), .pause(duration: 1),
            // A jump far down, past rows never laid out; reading there and flings, then back up over rows never laid out.
            .jump(item: far), .pause(duration: 1.5), .drag(speed: 250, duration: 2), .pause(duration: 0.5), .fling(velocity: 6_000),
            .pause(duration: 0.3), .fling(velocity: 9_000), .pause(duration: 1), .drag(speed: -400, duration: 2), .pause(duration: 0.5),
            .fling(velocity: -5_000), .pause(duration: 0.3), .fling(velocity: -8_000), .pause(duration: 1.5),
        ]
        let kind: Kind = selfSizing ? .selfSizing : .variableRows
        return Scenario(name: "\(kind.rawValue)-list", layout: layout, viewport: .phoneList, motion: .gestures(gestures), selfSizing: selfSizing)
    }
}
