extension FetchScheduler {
    /// A load the scheduler started or cancelled: `id`, loaded as `load`.
    @usableFromInline struct RunningLoad: Hashable, Sendable, CustomStringConvertible {
        /// The id being loaded.
        @usableFromInline let id: ID
        /// The load.
        @usableFromInline let load: LoadID

        /// Creates a reference to a load.
        @inlinable
        init(_ id: ID, _ load: LoadID) {
            self.id = id
            self.load = load
        }

        /// The id and the load, such as `7 as L3`.
        @usableFromInline var description: String { "\(id) as \(load)" }
    }

    /// What `FetchScheduler.request(_:interest:priority:)` asks for.
    @usableFromInline struct RequestAction: Hashable, Sendable {
        /// Whether `id` already had a load (waiting or running) that the interest joined.
        @usableFromInline var joined: Bool
        /// The load to start: the request created `id`'s load and a slot was free; or, with
        /// ``preempt``, the most urgent waiting id, which takes the stopped load's slot.
        /// Report its end with `FetchScheduler.finished(_:load:)`.
        @usableFromInline var start: RunningLoad?
        /// A running load pre-empted by this request: stop it (its slot went to ``start``, and a
        /// later `FetchScheduler.finished(_:load:)` for it is ignored). Its id waits again.
        @usableFromInline var preempt: RunningLoad?

        /// Creates the action.
        @inlinable
        init(joined: Bool, start: RunningLoad?, preempt: RunningLoad? = nil) {
            self.joined = joined
            self.start = start
            self.preempt = preempt
        }
    }

    /// What `FetchScheduler.setPriority(_:interest:priority:)` asks for.
    struct PriorityAction: Hashable, Sendable {
        /// Whether the interest was held (otherwise nothing changed).
        var held: Bool
        /// The running load the change pre-empted (stop it; its id waits again) and the load that took its slot.
        var preempt: (stop: RunningLoad, start: RunningLoad)?

        /// Creates the action.
        init(held: Bool, preempt: (stop: RunningLoad, start: RunningLoad)? = nil) {
            self.held = held
            self.preempt = preempt
        }

        /// Equal when both say the same.
        static func == (lhs: PriorityAction, rhs: PriorityAction) -> Bool {
            lhs.held == rhs.held && lhs.preempt?.stop == rhs.preempt?.stop && lhs.preempt?.start == rhs.preempt?.start
        }

        /// Hashes what ``==`` compares.
        func hash(into hasher: inout Hasher) {
            hasher.combine(held)
            hasher.combine(preempt?.stop)
            hasher.combine(preempt?.start)
        }
    }

    /// What `FetchScheduler.release(_:interest:)` asks for.
    enum ReleaseAction: Hashable, Sendable {
        /// Nothing: the interest was not held, other interests still hold the load, or the
        /// load was only queued and is dropped.
        case none
        /// The last interest left a running load: cancel it. Its slot is already free, and a
        /// later `FetchScheduler.finished(_:load:)` for it is ignored. `next` took the slot.
        case cancel(RunningLoad, next: RunningLoad?)
        /// The interest left a running load still held, but now by the prefetch alone or at a
        /// priority a waiting id outranks by the margin: stop it (pre-emption; its id waits
        /// again, and a later `FetchScheduler.finished(_:load:)` for it is ignored). `next` took the slot.
        case preempt(RunningLoad, next: RunningLoad)
    }

    /// What a batch release (`FetchScheduler.release(_:interest:)`) asks for.
    @usableFromInline struct BatchAction: Hashable, Sendable {
        /// Running loads that lost their last interest: cancel them (their slots are free).
        @usableFromInline var cancel: [RunningLoad] = []
        /// Running loads pre-empted for more urgent waiting ids: stop them (their slots are
        /// taken by loads in ``start``); their ids wait again.
        @usableFromInline var preempt: [RunningLoad] = []
        /// Loads to start, in start order.
        @usableFromInline var start: [RunningLoad] = []

        /// Creates an empty action.
        @inlinable
        init() {}
    }

    /// An id that gained the prefetch interest in `FetchScheduler.updatePrefetch(_:releasing:)`.
    struct Added: Hashable, Sendable {
        /// The id.
        let id: ID
        /// Whether it already had a load (held by consumers) that the prefetch joined.
        let joined: Bool

        /// Creates the record.
        init(_ id: ID, joined: Bool) {
            self.id = id
            self.joined = joined
        }
    }

    /// What `FetchScheduler.updatePrefetch(_:releasing:)` asks for.
    struct UpdateAction: Hashable, Sendable {
        /// The ids that gained the prefetch interest (not those only re-prioritised), in request order.
        var added: [Added] = []
        /// Running loads that lost their last interest: cancel them (their slots are free).
        var cancel: [RunningLoad] = []
        /// Running loads pre-empted for more urgent waiting ids: stop them (their slots are
        /// taken by loads in ``start``); their ids wait again.
        var preempt: [RunningLoad] = []
        /// Loads to start, in start order (slots freed by cancellations first, then by pre-emptions).
        var start: [RunningLoad] = []

        /// Creates an empty action.
        init() {}
    }

    /// What `FetchScheduler.finished(_:load:)` asks for.
    @usableFromInline enum FinishAction: Hashable, Sendable {
        /// The load was cancelled, or had finished already: nobody hears about this result.
        case stale
        /// Give the result to these consumers, each exactly once, and start `next` in the freed slot.
        case deliver(consumers: FetchConsumerList, next: RunningLoad?)
    }

    /// What `FetchScheduler.cancelAll()` asks for.
    struct CancelAllAction: Hashable, Sendable {
        /// The loads that were running: cancel them.
        var cancel: [RunningLoad] = []
        /// The consumers that were waiting: tell each that no result will come.
        var abandon: [ConsumerID] = []

        /// Creates an empty action.
        init() {}
    }
}
