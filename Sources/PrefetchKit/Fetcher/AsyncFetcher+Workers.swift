// The load runner: workers, and performing the state machine's actions after the lock.
extension AsyncFetcher {
    @usableFromInline typealias RunningLoad = FetchScheduler<ID>.RunningLoad

    /// Creates the task of a new worker and registers its handle.
    @inlinable
    func start(_ spawn: Machine.Spawn) {
        onEvent?(.loadStarted(spawn.load.id))
        // Read before the task exists: once it runs, a virtual clock may move on (a worker that
        // hands its next load over starts it off the caller's thread).
        let now = clock.now()
        let task = Task { await self.work(spawn.worker, first: spawn.load) }
        if state.withLock({ $0.register(spawn.worker, runner: task, at: now) }) { task.cancel() }
    }

    /// A worker: runs `first`, then each load the scheduler gives it, until none is left for it.
    @inlinable
    func work(_ worker: Machine.WorkerID, first: RunningLoad) async {
        var load = first
        while true {
            // The loader may ask whether this is a prefetch (`FetchLoadContext`).
            let (priority, target) = state.withLock { ($0.scheduler.priority(of: load.id), $0.targetQuality(of: load.id)) }
            var quality = loaderPreviews ? target : .full
            let started = clock.now()
            let state = self.state, id = load.id, running = load
            let meter = TransferMeter(priorityNow: { state.withLock { $0.livePriority(of: id) } },
                                      qualityNow: { state.withLock { $0.liveQuality(of: id) } })
            // A preview the loader reports on its way to the full value.
            let sink: @Sendable (Value) -> Void = { [weak self] value in self?.deliverPreview(value, of: running) }
            var (result, fromStore) = await FetchLoadContext.current.withValue(priority) {
                await FetchLoadContext.meter.withValue(meter) { await obtain(load.id, quality: quality, preview: sink) }
            }
            // A preview load that brought the full value (the loader had it at hand) is a full load.
            if quality == .preview, meter.returnedFull, case .success = result { quality = .full }
            // A preview load that was upgraded while it ran: deliver the preview, then load the rest.
            if quality == .preview, !fromStore, case .success(let preview) = result {
                let previewCost = cost(preview)
                if let action = state.withLock({ $0.previewLoadEnded(running, value: preview, cost: previewCost) }) {
                    perform(action, preview: preview, of: id)
                    quality = .full
                    (result, fromStore) = await FetchLoadContext.current.withValue(priority) {
                        await FetchLoadContext.meter.withValue(meter) { await obtain(load.id, quality: .full, preview: sink) }
                    }
                }
            }
            if fromStore { quality = .full }
            let ended = clock.now()
            let latency = ended - started
            // The cost function is the caller's code: computed here, never under the lock.
            var valueCost: Int?
            var toStore: Value?
            if case .success(let value) = result {
                valueCost = cost(value)
                // Only full values go to the store: what it holds is final.
                if store != nil, !fromStore, quality == .full { toStore = value }
            }
            let finalQuality = quality
            let action = state.withLock {
                $0.finished(worker, load, result: result, quality: finalQuality, cost: valueCost, latency: latency,
                            fromStore: fromStore, canContinue: toStore == nil, at: ended, transferred: meter.total)
            }
            let next = perform(action, for: load.id, result: result, latency: latency, fromStore: fromStore)
            if let toStore { await write(toStore, for: load.id) }
            guard let next else { return }
            load = next
        }
    }

    /// Asks the store, then the loader (at `quality`, with the sink for a preview on the way),
    /// retrying with back-off on the injected clock.
    @inlinable
    func obtain(_ id: ID, quality: FetchQuality = .full, preview: @escaping @Sendable (Value) -> Void = { _ in })
        async -> (result: Result<Value, any Error>, fromStore: Bool) {
        if let store {
            do {
                if let stored = try await store.value(for: id) { return (.success(stored), true) }
            } catch {
                // A store that cannot answer is not fatal: the loader still can.
                onEvent?(.storeReadFailed(id, error: error))
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            do {
                try Task.checkCancellation()
                return (.success(try await load(id, quality, preview)), false)
            } catch {
                if Task.isCancelled || error is CancellationError { return (.failure(CancellationError()), false) }
                let willRetry = attempt < retry.maxAttempts && retry.shouldRetry(error)
                onEvent?(.loadFailed(id, error: error, willRetry: willRetry))
                guard willRetry else { return (.failure(error), false) }
                let random = state.withLock { $0.retrying() }
                do {
                    try await clock.sleep(retry.delay(afterAttempt: attempt, random: random))
                } catch {
                    return (.failure(CancellationError()), false)
                }
            }
        }
    }

    /// A running load's loader reported a preview: cache it and show it (outside the lock).
    @usableFromInline
    func deliverPreview(_ value: Value, of load: RunningLoad) {
        let previewCost = cost(value)
        let action = state.withLock { $0.previewArrived(load, value: value, cost: previewCost, onTheWay: true) }
        perform(action, preview: value, of: load.id)
    }

    /// Shows a preview to its watchers, answers the consumers it satisfies, and cancels or starts
    /// the loads that changes.
    @usableFromInline
    func perform(_ action: Machine.PreviewAction, preview: Value, of id: ID) {
        onEvent?(.previewLoaded(id))
        action.watchers.forEach { $0.showPreview(preview) }
        action.answered.forEach { $0.resume(.success(preview)) }
        action.stopped.forEach { cancel($0) }
        if let cancellation = action.cancel { cancel(cancellation) }
        action.respawn.forEach { start($0) }
        if let spawn = action.spawn { start(spawn) }
    }

    @usableFromInline
    func write(_ value: Value, for id: ID) async {
        guard let store else { return }
        do {
            try await store.store(value, for: id)
            onEvent?(.storeWritten(id))
        } catch {
            onEvent?(.storeWriteFailed(id, error: error))
        }
    }

    /// Delivers a finished load's result; returns the load this worker runs next, if any.
    @inlinable
    func perform(_ action: Machine.FinishAction, for id: ID, result: Result<Value, any Error>,
                 latency: Duration, fromStore: Bool) -> RunningLoad? {
        switch action {
        case .late(let succeeded):
            if succeeded { onEvent?(.lateResult(id)) }
            return nil
        case .delivered(let waiters, let cacheError, let next):
            if let onEvent, case .success = result {
                if fromStore { onEvent(.storeHit(id)) }
                onEvent(.loadCompleted(id, latency: latency))
                if let cacheError { onEvent(.loadFailed(id, error: cacheError, willRetry: false)) }
            }
            waiters.forEach { $0.resume(result) }
            switch next {
            case .end:
                return nil
            case .continue(let load):
                onEvent?(.loadStarted(load.id))
                return load
            case .spawn(let spawn):
                start(spawn)
                return nil
            }
        }
    }

    @inlinable
    func perform(_ action: Machine.BatchAction) {
        if let onEvent {
            for id in action.rejected { onEvent(.rejected(id, error: Machine.shutdownError(id))) }
            for id in action.hits { onEvent(.cacheHit(id)) }
            for request in action.requested { onEvent(.requested(request.id, coalesced: request.joined)) }
        }
        for cancellation in action.cancel { cancel(cancellation) }
        for spawn in action.spawn { start(spawn) }
    }

    @inlinable
    func cancel(_ cancellation: Machine.Cancellation) {
        cancellation.runner?.cancel()
        onEvent?(.loadCancelled(cancellation.id))
        // How long it ran, measured now (when it was cancelled), not when its task gets to end.
        if let started = cancellation.started {
            let ran = clock.now() - started
            state.withLock { $0.cancelledLoadRan(for: ran) }
        }
    }
}

extension AsyncFetcher: FetchHandleOwner {
    /// Withdraws one consumer: its handle's `cancel()`, or its task's cancellation.
    @usableFromInline
    func withdraw(_ consumer: FetchConsumerID) {
        guard case .withdrawn(let waiter, let cancellation, let spawn) = state.withLock({ $0.withdraw(consumer) }) else { return }
        waiter.resume(.failure(CancellationError()))
        if let cancellation { cancel(cancellation) }
        if let spawn { start(spawn) }
    }
}
