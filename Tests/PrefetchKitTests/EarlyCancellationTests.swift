import Testing
import PrefetchTesting
@testable import PrefetchKit

@Suite struct EarlyCancellationTests {
    @Test func aCancellationAfterTheAnswerLeavesNothingBehind() async throws {
        // Given a `value(for:)` whose task runs only when the test lets it
        let loader = ScriptedLoader<Int, String>()
        let fetcher = try makeFetcher(loader: loader)
        let executor = HeldExecutor()
        let task = Task(executorPreference: executor) { try await fetcher.value(for: 1) }
        await executor.waitForJob()
        executor.runAll()                      // the task asks, and waits for the load
        await loader.waitForCalls(1)
        // When the load answers it, and its task is cancelled before it runs again (cell reuse)
        loader.succeed(1, with: "one")
        await executor.waitForJob()            // resumed, not run yet
        task.cancel()
        executor.runAll()
        // Then the task gets its value, and the fetcher keeps no record of the late cancellation
        #expect(try await task.value == "one")
        #expect(fetcher.state.withLock { $0.reservations.isEmpty && $0.consumers.isEmpty })
    }

    @Test func aCancellationBeforeTheContinuationExistsIsHeardByIt() throws {
        // The state machine alone: value(for:) reserves, its task is cancelled, then it attaches.
        var machine = try FetcherStateMachine<Int, String, Int, Int>(configuration: FetcherConfiguration(), observing: false)
        guard case .reserved(let consumer) = machine.reserve(1) else {
            Issue.record("expected a reservation")
            return
        }
        guard case .none = machine.withdraw(consumer) else {
            Issue.record("a reserved consumer has no waiter to answer yet")
            return
        }
        guard case .cancelled = machine.attach(consumer, for: 1, waiter: 7, priority: .visible) else {
            Issue.record("the attach must see the cancellation")
            return
        }
        // Nothing is left: no reservation, no consumer, no load.
        #expect(machine.reservations.isEmpty && machine.consumers.isEmpty)
        #expect(machine.statistics.loadsStarted == 0 && machine.statistics.requests == 1)
        // A second cancellation of the same consumer (it was answered) records nothing.
        guard case .none = machine.withdraw(consumer) else {
            Issue.record("an answered consumer has nothing to withdraw")
            return
        }
        #expect(machine.reservations.isEmpty)
        machine._checkInvariants()
    }
}
