import Foundation
@testable import PrefetchCollectionView
import Testing

/// The engine's one state value: its transitions, one by one.
@Suite("Engine state")
struct EngineStateTests {
    @Test func aNewViewReloadsThenLaysOutThenHasNothingToDo() {
        var state = EngineState()
        #expect(state.work == .reload)
        #expect(state.apply { $0.takeReload() })
        #expect(state.work == .layout)
        #expect(!state.apply { $0.takeReload() })
        #expect(state.apply { $0.takeLayout() })
        #expect(state.work == .none)
        #expect(!state.apply { $0.takeLayout() })
    }

    @Test func invalidatingNeverLowersTheWorkDue() {
        var state = EngineState()
        state.invalidate(.layout)
        #expect(state.work == .reload)
        _ = state.takeReload()
        _ = state.takeLayout()
        state.invalidate(.layout)
        #expect(state.work == .layout)
        state.invalidate(.none)
        #expect(state.work == .layout)
        state.invalidate(.reload)
        #expect(state.work == .reload)
    }

    @Test func aReloadAskedForDuringAReloadStaysDueAfterTheLayout() {
        var state = EngineState()
        #expect(state.apply { $0.takeReload() })
        state.invalidate(.reload)  // reloadData() from numberOfSections
        #expect(state.apply { $0.takeLayout() })
        #expect(state.work == .reload)
        #expect(state.apply { $0.takeReload() })
    }

    @Test func aPassInsideAPassIsRefusedAndChangesLayOutOnlyOnceAPassBegan() {
        var state = EngineState()
        #expect(state.pass == .notStarted && !state.laysOutOnChange)
        #expect(state.apply { $0.beginPass() })
        #expect(state.laysOutOnChange)
        #expect(!state.apply { $0.beginPass() })
        #expect(state.pass == .running)
        state.endPass()
        #expect(state.pass == .idle && state.laysOutOnChange)
        #expect(state.apply { $0.beginPass() })
    }

    @Test func theClockStartsAtTheFirstStepAndReportsTheTimeBetweenSteps() {
        var state = EngineState()
        #expect(state.clock == nil)
        #expect(state.apply { $0.advanceClock(to: -2) } == 0)
        #expect(state.clock == -2)
        #expect(state.apply { $0.advanceClock(to: 0.5) } == 2.5)
        #expect(state.apply { $0.advanceClock(to: 0.5) } == 0)
        #expect(state.clock == 0.5)
    }

    @Test func aClockGoingBackOrNotFiniteTraps() async {
        await #expect(processExitsWith: .failure) {
            var state = EngineState()
            _ = state.advanceClock(to: 1)
            _ = state.advanceClock(to: 0.5)
        }
        await #expect(processExitsWith: .failure) {
            var state = EngineState()
            _ = state.advanceClock(to: .infinity)
        }
        await #expect(processExitsWith: .failure) {
            var state = EngineState()
            state.endPass()
        }
    }

    @Test @MainActor func aReloadFromTheDataSourceWhileItIsReadIsHonouredByTheSamePass() throws {
        final class Reloading: CollectionViewDataSource {
            var sectionReads = 0
            func numberOfSections(in collectionView: CollectionView) -> Int {
                sectionReads += 1
                if sectionReads == 1 { collectionView.reloadData() }  // the data changed while read
                return 1
            }
            func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
                sectionReads == 1 ? 3 : 5
            }
            func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
                collectionView.dequeueReusableCell(withReuseIdentifier: "c", for: indexPath)
            }
        }
        let view = CollectionView(frame: CGRect(x: 0, y: 0, width: 100, height: 400), collectionViewLayout: try ListLayout(rowHeight: 50))
        view.register(CollectionViewCell.self, forCellWithReuseIdentifier: "c")
        let source = Reloading()
        view.dataSource = source
        view.step(to: 0)
        #expect(source.sectionReads == 2)
        #expect(view.indexPathsForVisibleItems.count == 5)
        #expect(view.state.work == .none && view.state.pass == .idle)
        view._checkInvariants()
    }
}

extension EngineState {
    /// Runs one transition and returns its result, for `#expect` (which cannot call a mutating method).
    mutating func apply<Result>(_ transition: (inout EngineState) -> Result) -> Result { transition(&self) }
}
