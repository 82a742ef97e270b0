// A stand-in for Apple's Network framework on Linux: exactly what PrefetchUIKit's
// NetworkBindings.swift touches (`NWPathMonitor` and the two flags of `NWPath`), declared from
// Apple's documentation. `GlueCheckTests` reports a path with `simulate(_:)`.
import Dispatch
import Synchronization

/// `NWPath`: the flags the bindings read.
public struct NWPath: Sendable {
    /// Low Data Mode is on for this path.
    public var isConstrained: Bool
    /// The path uses an interface the system considers expensive (cellular, a hotspot).
    public var isExpensive: Bool

    /// Creates a path (stand-in only).
    public init(isConstrained: Bool, isExpensive: Bool) {
        self.isConstrained = isConstrained
        self.isExpensive = isExpensive
    }
}

/// `NWPathMonitor`: calls `pathUpdateHandler` on the queue given to `start(queue:)`.
public final class NWPathMonitor: Sendable {
    private let state = Mutex<(handler: (@Sendable (NWPath) -> Void)?, queue: DispatchQueue?, cancelled: Bool)>((nil, nil, false))

    public init() {}

    /// Called with each new path.
    public var pathUpdateHandler: (@Sendable (NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    public func start(queue: DispatchQueue) { state.withLock { $0.queue = queue } }

    public func cancel() { state.withLock { $0.cancelled = true } }

    /// Reports `path` to the handler at once, on the caller's thread, if the monitor was started
    /// and not cancelled (stand-in only: the tests call it on the main thread, the queue they start it on).
    public func simulate(_ path: NWPath) {
        let (handler, started, cancelled) = state.withLock { ($0.handler, $0.queue != nil, $0.cancelled) }
        guard let handler, started, !cancelled else { return }
        handler(path)
    }
}
