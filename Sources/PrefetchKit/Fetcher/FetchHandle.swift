/// Withdraws one consumer of an ``AsyncFetcher``: its completion is then called with `CancellationError`.
///
/// A value (a weak reference to the fetcher and the consumer's number): creating one allocates
/// nothing, and a handle outliving its fetcher does nothing.
public struct FetchHandle: Sendable {
    private weak var owner: (any FetchHandleOwner)?
    private let consumer: FetchConsumerID

    @usableFromInline
    init(owner: any FetchHandleOwner, consumer: FetchConsumerID) {
        self.owner = owner
        self.consumer = consumer
    }

    /// Withdraws the consumer; a no-op once it has heard its result.
    public func cancel() { owner?.withdraw(consumer) }
}

/// What a ``FetchHandle`` withdraws its consumer from.
@usableFromInline
protocol FetchHandleOwner: AnyObject, Sendable {
    func withdraw(_ consumer: FetchConsumerID)
}
