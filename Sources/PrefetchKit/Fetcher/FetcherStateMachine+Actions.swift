// The action types of `FetcherStateMachine`: one per input, holding only what that input can ask for.
extension FetcherStateMachine {
    /// The front half of admission's verdict.
    @usableFromInline
    enum Screening {
        /// Shut down: refuse with this error.
        case refused(PrefetchError)
        /// Cached: answer with the value.
        case hit(Value)
        /// Not cached, or only a preview is cached (`preview`) and the request wants the full
        /// value: go on to the scheduler.
        case miss(preview: Value?)
    }

    /// A load given to a new worker: create its task, then ``FetcherStateMachine/register(_:runner:)`` it.
    @usableFromInline
    struct Spawn: Sendable {
        @usableFromInline var worker: WorkerID
        @usableFromInline var load: RunningLoad
        @inlinable init(worker: WorkerID, load: RunningLoad) {
            self.worker = worker
            self.load = load
        }
    }

    /// A running load that lost its last interest, or was pre-empted: cancel `runner` (`nil`
    /// while the task handle is not registered yet; registration cancels it then).
    @usableFromInline
    struct Cancellation: Sendable {
        @usableFromInline var id: ID
        @usableFromInline var runner: Runner?
        /// When the load started on the fetcher's clock, if known: the fetcher records how long
        /// it ran (``FetcherStateMachine/cancelledLoadRan(for:)``).
        @usableFromInline var started: Duration?
        @inlinable init(id: ID, runner: Runner?, started: Duration? = nil) {
            self.id = id
            self.runner = runner
            self.started = started
        }
    }

    /// A request that reached the scheduler, for the `requested` event.
    @usableFromInline
    struct Requested: Sendable {
        @usableFromInline var id: ID
        @usableFromInline var joined: Bool
        @inlinable init(_ id: ID, joined: Bool) {
            self.id = id
            self.joined = joined
        }
    }

    /// What ``FetcherStateMachine/request(_:waiter:priority:)`` asks for.
    @usableFromInline
    enum RequestAction {
        /// Shut down: answer the waiter with this error.
        case refused(PrefetchError)
        /// Cached: answer the waiter with the value.
        case hit(Value)
        /// The waiter is registered as `consumer`; it joined a load or created one, started as
        /// `spawn`; `preempt` is a running load it pre-empted (cancel it before starting `spawn`);
        /// `preview` is a cached preview to show the waiter now (it watches for previews).
        case requested(FetchConsumerID, joined: Bool, spawn: Spawn?, preempt: Cancellation?, preview: Value?)
    }

    /// What ``FetcherStateMachine/reserve(_:)`` asks for.
    enum ReserveAction {
        /// Shut down: throw this error.
        case refused(PrefetchError)
        /// Cached: return the value.
        case hit(Value)
        /// Create the continuation, then ``FetcherStateMachine/attach(_:for:waiter:priority:)`` it as this consumer.
        case reserved(FetchConsumerID)
    }

    /// What ``FetcherStateMachine/attach(_:for:waiter:priority:)`` asks for.
    enum AttachAction {
        /// The task was cancelled before the continuation existed: resume it with `CancellationError`.
        case cancelled
        /// Shut down meanwhile: resume with this error.
        case refused(PrefetchError)
        /// The value arrived meanwhile: resume with it.
        case hit(Value)
        /// Registered; it joined a load or created one, started as `spawn`; `preempt` is a
        /// running load it pre-empted (cancel it before starting `spawn`).
        case requested(joined: Bool, spawn: Spawn?, preempt: Cancellation?)
    }

    /// What the batch inputs (prefetch, update, cancel prefetching) ask for.
    @usableFromInline
    struct BatchAction: Sendable {
        /// Ids refused after shutdown.
        @usableFromInline var rejected: [ID] = []
        /// Ids answered by the cache (only when observing).
        @usableFromInline var hits: [ID] = []
        /// Ids that reached the scheduler (only when observing).
        @usableFromInline var requested: [Requested] = []
        /// Loads that lost their last interest, then loads pre-empted (their ids wait again).
        @usableFromInline var cancel: [Cancellation] = []
        /// Loads given to new workers.
        @usableFromInline var spawn: [Spawn] = []
        @inlinable init() {}
    }

    /// What ``FetcherStateMachine/withdraw(_:)`` asks for.
    enum WithdrawAction {
        /// Nothing now: the consumer was answered already, or is reserved (its attach will see the cancellation).
        case none
        /// Resume the waiter with `CancellationError`; cancel its load if it was the last interest,
        /// or if, left to the prefetch alone, it was pre-empted; start the next.
        case withdrawn(Waiter, cancel: Cancellation?, spawn: Spawn?)
    }

    /// The waiters of one delivery: none, one (no allocation), or many.
    @usableFromInline
    enum Waiters {
        case none
        case one(Waiter)
        case many([Waiter])

        @inlinable
        mutating func append(_ waiter: Waiter) {
            switch self {
            case .none: self = .one(waiter)
            case .one(let first): self = .many([first, waiter])
            case .many(var all):
                self = .none  // drop the reference so `all` is uniquely held and appends in place
                all.append(waiter)
                self = .many(all)
            }
        }

        @inlinable
        func forEach(_ body: (Waiter) -> Void) {
            switch self {
            case .none: break
            case .one(let waiter): body(waiter)
            case .many(let all): all.forEach(body)
            }
        }

        var count: Int {
            switch self {
            case .none: 0
            case .one: 1
            case .many(let all): all.count
            }
        }
    }

    /// What a worker does after its load.
    @usableFromInline
    enum Next {
        /// Nothing is waiting: the worker ends.
        case end
        /// Run this load next, on the same task.
        case `continue`(RunningLoad)
        /// The next load went to a new worker (this one still has a store write to do); the worker ends after it.
        case spawn(Spawn)
    }

    /// What ``FetcherStateMachine/finished(_:_:result:cost:latency:fromStore:canContinue:)`` asks for.
    @usableFromInline
    enum FinishAction {
        /// The load had been cancelled: nobody hears. A value (`succeeded`) went to the cache
        /// (counted as a late result), an error was dropped. The worker ends.
        case late(succeeded: Bool)
        /// Give the result to these waiters; report a value the cache refused; then `next`.
        case delivered(Waiters, cacheError: PrefetchError?, next: Next)
    }

    /// What ``FetcherStateMachine/shutdown()`` asks for.
    struct ShutdownAction: Sendable {
        /// Loads to cancel.
        var cancel: [Cancellation] = []
        /// Waiters to answer with `CancellationError`.
        var abandon: [Waiter] = []
        init() {}
    }
}
