import PrefetchKit
import Testing

@Suite("Built-in prefetch policies")
struct PolicyTests {
    let viewport = 1000.0..<1400.0

    @Test func uikitLikeLooksAheadInTheDirectionOfTravel() {
        let forward = PrefetchPolicies.uikitLike.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000, velocity: 500))
        #expect(forward.regions == [1400..<1700])
        let backward = PrefetchPolicies.uikitLike.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000, velocity: -500))
        #expect(backward.regions == [700..<1000])
    }

    @Test func uikitLikeAtRestLooksTowardTheEnd() {
        let plan = PrefetchPolicies.uikitLike.plan(for: ScrollContext(viewport: 0..<400, contentLength: 10_000))
        #expect(plan.regions == [400..<700])
    }

    @Test func regionsAreClippedToTheContent() {
        let atEnd = PrefetchPolicies.uikitLike.plan(for: ScrollContext(viewport: 9_800..<10_000, contentLength: 10_000, velocity: 10))
        #expect(atEnd.regions.isEmpty)
        let nearStart = PrefetchPolicies.textureLike.plan(for: ScrollContext(viewport: 100..<500, contentLength: 10_000, velocity: 10))
        #expect(nearStart.regions == [500..<1500, 0..<100])
    }

    @Test func textureLikeLoadsAheadThenBehind() {
        let plan = PrefetchPolicies.textureLike.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000, velocity: -1))
        #expect(plan.regions == [0..<1000, 1400..<2000])
        #expect(PrefetchPolicies.textureLike.name == "textureLike")
    }

    @Test func noneNeverPrefetches() {
        let plan = PrefetchPolicies.none.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000, velocity: 900))
        #expect(plan == .empty)
        let policy: any PrefetchPolicy = PrefetchPolicies.none
        #expect(policy.name == "none")
    }

    @Test func customLengthsAreUsed() throws {
        let policy = try PrefetchPolicies.UIKitLike(lead: 2)
        #expect(policy.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000)).regions == [1400..<2200])
        let texture = try PrefetchPolicies.TextureLike(ahead: 1, behind: 0)
        #expect(texture.plan(for: ScrollContext(viewport: viewport, contentLength: 10_000)).regions == [1400..<1800])
    }

    @Test(arguments: [-1.0, .nan, .infinity])
    func invalidLengthsThrowNamingTheValue(_ value: Double) {
        #expect {
            _ = try PrefetchPolicies.UIKitLike(lead: value)
        } throws: { error in
            guard let error = error as? PrefetchError else { return false }
            return error.code == .invalidConfiguration && error.message.contains("lead") && error.message.contains("\(value)")
        }
        #expect(throws: PrefetchError.self) { _ = try PrefetchPolicies.TextureLike(ahead: 1, behind: value) }
    }

    @Test func degenerateContextsGiveEmptyPlans() {
        #expect(PrefetchPolicies.uikitLike.plan(for: ScrollContext(viewport: 0..<0, contentLength: 100)) == .empty)
        #expect(PrefetchPolicies.textureLike.plan(for: ScrollContext(viewport: 0..<100, contentLength: .nan)) == .empty)
    }
}
