import Testing
@testable import PrefetchKit

@Suite struct FetchPriorityTests {
    @Test func visibleOutranksPrefetchAndNearerOutranksFarther() {
        #expect(FetchPriority.visible > FetchPriority.prefetch)
        #expect(FetchPriority.prefetch > FetchPriority.background)
        #expect(FetchPriority(level: .prefetch, order: 1) > FetchPriority(level: .prefetch, order: 5))
        #expect(FetchPriority(level: .visible, order: 99) > FetchPriority(level: .prefetch, order: 0))
        #expect(FetchPriority(level: .prefetch, order: 3).description == "prefetch#3")
    }
}
