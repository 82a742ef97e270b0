/// Where an ``ItemScrollView`` is in its frame cycle, as one value: the work its next layout pass
/// must redo first, whether a pass has run or is running, and its clock. Only these transitions
/// change it:
///
/// ```
/// work   none ─invalidate(.layout)─▶ layout ─invalidate(.reload)─▶ reload   (changes only raise it)
///        reload ─takeReload()─▶ layout ─takeLayout()─▶ none                 (a pass takes it)
/// pass   notStarted ─beginPass()─▶ running ─endPass()─▶ idle ─beginPass()─▶ running …
/// clock  nil ─advanceClock(to: t)─▶ t ─advanceClock(to: t′ ≥ t)─▶ t′
/// ```
///
/// A reload includes a new layout and a running pass refuses a nested one, so what separate flags
/// allowed without meaning (a reload due without a layout, a pass within a pass, a clock reading 0
/// before it started) cannot be written.
struct EngineState: Equatable {
    /// What the next layout pass must redo before it lays out; each level includes the ones below.
    enum Work: Comparable {
        /// Nothing: the counts and the layout match the data source, the size and the insets.
        case none
        /// Prepare the layout again: the size, insets, layout, delegate or counts changed.
        case layout
        /// Read the data source again, then prepare the layout: `reloadData()`, a new data source.
        case reload
    }

    /// Where the view is among its layout passes.
    enum Pass: Equatable {
        /// No pass has run: changes of size, offset or data wait for the first.
        case notStarted
        /// A pass is running: a `layoutIfNeeded()` from one of its callbacks is ignored.
        case running
        /// A pass has run and none is running: changes lay the view out at once.
        case idle
    }

    /// The work the next pass must do first; a new view reads its data source.
    private(set) var work = Work.reload
    /// Where the view is among its layout passes.
    private(set) var pass = Pass.notStarted
    /// The timestamp of the last `step(to:)`, in seconds; nil before the first.
    private(set) var clock: Double?

    /// Asks the next pass for at least `work`; never lowers what is due.
    mutating func invalidate(_ work: Work) {
        self.work = max(self.work, work)
    }

    /// Whether the data source must be read now; if so the reload starts and the layout stays due.
    mutating func takeReload() -> Bool {
        guard work == .reload else { return false }
        work = .layout
        return true
    }

    /// Whether the layout must be prepared now; if so it is done, except that a reload asked for
    /// by a callback of the reload just taken stays due, for the pass to repeat.
    mutating func takeLayout() -> Bool {
        switch work {
        case .none: return false
        case .layout: work = .none
        case .reload: break
        }
        return true
    }

    /// Starts a layout pass; false, changing nothing, when one is running (the running pass
    /// finishes the work a callback asked for).
    mutating func beginPass() -> Bool {
        guard pass != .running else { return false }
        pass = .running
        return true
    }

    /// Ends the running pass: from now on changes lay the view out at once.
    mutating func endPass() {
        precondition(pass == .running, "endPass() without a running layout pass")
        pass = .idle
    }

    /// Whether a change of size, insets, offset or layout lays the view out at once: once the
    /// first pass has begun (inside a pass, ``beginPass()`` refuses the nested one).
    var laysOutOnChange: Bool { pass != .notStarted }

    /// Moves the clock to `timestamp`; returns the seconds since the previous step, 0 at the first
    /// (which only sets the clock). Traps on a non-finite timestamp or one that goes back.
    mutating func advanceClock(to timestamp: Double) -> Double {
        precondition(timestamp.isFinite, "step(to:) timestamp \(timestamp) must be finite")
        defer { clock = timestamp }
        guard let clock else { return 0 }
        precondition(timestamp >= clock, "step(to:) timestamp \(timestamp) is earlier than the view's current time \(clock)")
        return timestamp - clock
    }
}
