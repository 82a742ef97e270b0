/// A clock reduced to what the fetcher and the scroll prefetchers need: elapsed time since
/// creation, and sleeping.
@usableFromInline
struct ErasedClock: Sendable {
    @usableFromInline let now: @Sendable () -> Duration
    @usableFromInline let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
    }
}
