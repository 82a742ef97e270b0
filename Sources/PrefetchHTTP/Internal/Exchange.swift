import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrefetchKit

/// One request's state: the waiting caller, the bytes so far, and the task and timer to stop.
///
/// A request may continue the kept first bytes of a stopped transfer (``PartialTransfer``): the
/// response head decides whether the body continues them. When the exchange fails in a way a
/// later load may get past, its bytes so far go to the loader's ``PartialTransferStore``; they
/// are never a result on their own.
///
/// Whoever finishes first (the delegate, the timer, a cancellation) wins; the rest are no-ops.
/// The continuation is resumed, and the task and timer cancelled, after the lock is released.
final class Exchange: Sendable {
    private enum Phase: Sendable { case waiting, head, done }

    private struct State: Sendable {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<Data, any Error>?
        var earlyResult: Result<Data, any Error>?
        var body = Data()
        var task: URLSessionDataTask?
        var timer: Task<Void, Never>?
        var credentialsDropped = false
        /// The kept bytes this request asks to continue, until the response head decides their fate.
        var resume: PartialTransfer?
        /// The validator and whole length of the body being received, when it may be kept if stopped.
        var validator: RangeValidator?
        var totalLength: Int?
        /// The length a continued body must reach to be whole.
        var expectedLength: Int?
        /// Body bytes this request received (a resumed one: only the rest).
        var moved = 0
        /// The urgency the task's priority was last set from.
        var urgency: Int?
        /// Whether the server answered the request's range with a `206` that fits it.
        var rangeHonoured = false
        /// Whether the prefix watch found its prefix (and, for a watch that stops, ended the exchange).
        var prefixFound = false
    }

    /// What a finished exchange learnt from its response head, for a caller that keeps its bytes.
    struct Outcome: Sendable {
        /// The validator of the body, when it may be continued.
        var validator: RangeValidator?
        /// The whole body's length, when the response declared it.
        var totalLength: Int?
        /// Whether a `206` answered the request's range (else the body is whole from its first byte).
        var rangeHonoured: Bool
        /// Whether the prefix watch found its prefix; a watch that stops then returned the prefix.
        var prefixFound: Bool
    }

    let url: URL
    let maxResponseSize: Int
    /// Whether the request carries a `Range` of the configured headers: its `206` is the value asked for.
    private let asksConfiguredRange: Bool
    /// Where the bytes of a stopped transfer go, or nil when the loader does not resume.
    private let partials: PartialTransferStore?
    private let onBytesReceived: (@Sendable (URL, Int) -> Void)?
    /// Reads the load's priority now (`FetchLoadContext.livePriority`), when the request carries it.
    private let priorityNow: (@Sendable () -> FetchPriority?)?
    /// Where the request's range stops (exclusive), when it asks for part of the body.
    private let rangeEnd: Int?
    /// Looks for a prefix of the body as it arrives (a preview), when set.
    private let watch: PrefixWatch?
    private let state: Locked<State>

    /// - Parameters:
    ///   - resume: the kept first bytes this request asks to continue (it carries `Range`).
    ///   - asksConfiguredRange: the request carries the configured headers' own `Range` (never with `resume`).
    init(url: URL, maxResponseSize: Int, resume: PartialTransfer? = nil, asksConfiguredRange: Bool = false,
         partials: PartialTransferStore? = nil, onBytesReceived: (@Sendable (URL, Int) -> Void)? = nil,
         priorityNow: (@Sendable () -> FetchPriority?)? = nil, rangeEnd: Int? = nil, watch: PrefixWatch? = nil) {
        self.url = url
        self.rangeEnd = rangeEnd
        self.watch = watch
        self.asksConfiguredRange = asksConfiguredRange
        self.priorityNow = priorityNow
        self.maxResponseSize = maxResponseSize
        self.partials = partials
        self.onBytesReceived = onBytesReceived
        var initial = State()
        initial.resume = resume
        state = Locked(initial)
    }

    /// The body bytes this request received over the network (a resumed one: only the rest).
    var bytesMoved: Int { state.withLock { $0.moved } }

    /// What the response head said, and whether the prefix watch fired.
    var outcome: Outcome {
        state.withLock {
            Outcome(validator: $0.validator, totalLength: $0.totalLength, rangeHonoured: $0.rangeHonoured,
                    prefixFound: $0.prefixFound)
        }
    }

    /// Whether this request asks for the rest of a kept transfer.
    var isResuming: Bool { state.withLock { $0.resume != nil } }

    /// Stores the caller's continuation; `false` (having resumed it) if the exchange already finished.
    func install(_ continuation: CheckedContinuation<Data, any Error>) -> Bool {
        let early = state.withLock { s -> Result<Data, any Error>? in
            if let early = s.earlyResult { return early }
            s.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Attaches the running task and its timer, or cancels them if the exchange finished meanwhile.
    func attach(task: URLSessionDataTask, timer: Task<Void, Never>) {
        followPriority(of: task)
        let finished = state.withLock { s -> Bool in
            guard s.phase != .done else { return true }
            s.task = task
            s.timer = timer
            return false
        }
        if finished {
            task.cancel()
            timer.cancel()
        }
    }

    var hasResponseHead: Bool { state.withLock { $0.phase != .waiting } }

    /// False once a redirect left the original origin: later hops never get the credentials back.
    var credentialsStillAllowed: Bool { state.withLock { !$0.credentialsDropped } }

    /// Records that a redirect left the original origin.
    func dropCredentials() {
        state.withLock { $0.credentialsDropped = true }
    }

    /// Records the response head, and moves `task`'s priority if the load's changed meanwhile.
    func receivedHead(of task: URLSessionDataTask) {
        state.withLock { s in if s.phase == .waiting { s.phase = .head } }
        followPriority(of: task)
    }

    /// Decides, from a 2xx response head, where its body goes: from the first byte, or after the
    /// kept bytes for a `206` that continues them. A `206` to the configured headers' own `Range`
    /// is the body asked for, kept by no one. Returns the error to fail with, if any.
    func acceptBody(of response: HTTPURLResponse) -> (any Error)? {
        let status = response.statusCode
        let field = { (name: String) in response.value(forHTTPHeaderField: name) }
        let encoding = field("Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        // Kept bytes are offsets into the representation as sent; a decoded body's are not.
        let identity = encoding == nil || encoding == "" || encoding == "identity"
        let declared = response.expectedContentLength
        let contentRange = field("Content-Range")
        let entityTag = field("ETag"), lastModified = field("Last-Modified")
        // Header fields are read (and dates parsed) before the lock is taken.
        let validator = identity && (status == 200 || (status == 206 && rangeEnd != nil))
            ? RangeValidator.of(entityTag: entityTag, lastModified: lastModified, date: field("Date")) : nil
        // The kept bytes are set when the exchange is made and only dropped when it ends.
        let resume = state.withLock { $0.resume }
        let decided = resume?.continuation(status: status, contentRange: contentRange,
                                           entityTag: entityTag, lastModified: lastModified, end: rangeEnd)
        // A request for the first bytes (a preview's): a `206` from the first byte to the range's
        // end, or to the body's end when it is shorter, is the part asked for.
        let leading: ContentRange? = resume == nil && status == 206 && identity
            ? rangeEnd.flatMap { end in
                contentRange.flatMap(ContentRange.parse).flatMap { range in
                    range.first == 0 && range.last == min(end, range.complete ?? end) - 1 ? range : nil
                }
            } : nil
        return state.withLock { s -> (any Error)? in
            guard s.phase != .done else { return nil }
            s.resume = nil
            var continuation = decided ?? .startOver
            // A 206 the request did not ask for is not a whole body; one to the configured `Range`
            // (still sent: no redirect left the origin) is the part asked for.
            if status == 206, resume == nil { continuation = asksConfiguredRange && !s.credentialsDropped ? .startOver : .other }
            if !identity, case .append = continuation { continuation = .askAgain }
            if let leading {
                s.validator = validator
                s.totalLength = leading.complete
                s.expectedLength = leading.last + 1
                s.rangeHonoured = true
                return nil
            }
            switch continuation {
            case .append(let total):
                guard total <= maxResponseSize else {
                    return HTTPLoaderError(.responseTooLarge,
                        "GET \(url.absoluteString) continued a \(total)-byte body; the maximum response size is \(maxResponseSize) bytes",
                        url: url)
                }
                s.body = resume?.body ?? Data()
                s.validator = resume?.validator
                s.totalLength = total
                s.expectedLength = min(rangeEnd ?? total, total)
                s.rangeHonoured = true
            case .startOver:
                if declared > Int64(maxResponseSize) {
                    return HTTPLoaderError(.responseTooLarge,
                        "GET \(url.absoluteString) declared a \(declared)-byte body; the maximum response size is \(maxResponseSize) bytes",
                        url: url)
                }
                s.validator = validator
                s.totalLength = declared >= 0 ? Int(declared) : nil
            case .askAgain:
                return AskAgainFromFirstByte()
            case .other:
                return HTTPLoaderError(.invalidResponse,
                    "GET \(url.absoluteString) answered \(status) without being asked for a range, or with a range it cannot continue",
                    url: url, statusCode: status)
            }
            return nil
        }
    }

    /// A non-2xx head: the kept bytes stay kept when the failure may pass (5xx), else are dropped.
    func rejectedHead(status: Int) {
        state.withLock { s in if !(500..<600).contains(status) { s.resume = nil } }
    }

    /// Sets `task`'s priority from the load's urgency when it changed: 0.75 for a visible cell's
    /// load, 0.5 (the default) for a prefetch, less for work further away. Apple documents a change
    /// after the task started as a hint that not every protocol acts on.
    private func followPriority(of task: URLSessionDataTask) {
        guard let urgency = priorityNow?()?.urgency else { return }
        let changed = state.withLock { s -> Bool in
            defer { s.urgency = urgency }
            return s.urgency != urgency
        }
        if changed { task.priority = Self.taskPriority(urgency: urgency) }
    }

    /// `URLSessionTask.priority` for an RFC 9218 urgency (0 to 7): `(7 − urgency) / 8`, so the
    /// default urgency 3 is the task's default priority, 0.5, with urgency 1 at 0.75 above it and
    /// 5 at 0.25 below it (where Apple's `highPriority` and `lowPriority` stand).
    static func taskPriority(urgency: Int) -> Float {
        Float(7 - min(max(urgency, 0), 7)) / 8
    }

    /// Appends a chunk of the body; fails the exchange when it passes the size limit.
    func received(_ data: Data) {
        let total = state.withLock { s -> Int? in
            guard s.phase != .done else { return nil }
            s.body.append(data)
            s.moved += data.count
            return s.body.count
        }
        if total != nil {
            onBytesReceived?(url, data.count)
            if let task = state.withLock({ $0.task }) { followPriority(of: task) }
            if let watch { look(for: watch) }
        }
        if let total, total > maxResponseSize {
            finish(.failure(HTTPLoaderError(.responseTooLarge,
                "GET \(url.absoluteString) body passed \(total) bytes; the maximum response size is \(maxResponseSize) bytes",
                url: url)))
        }
    }

    /// Looks for the watched prefix in the body so far. Once found, it is handed on, or, for a watch
    /// that stops and a response that is not a bounded range (whose rest is on its way anyway), it
    /// ends the exchange: the prefix is the result, and the bytes received are kept for later.
    private func look(for watch: PrefixWatch) {
        guard let body = state.withLock({ $0.prefixFound || $0.phase == .done ? nil : $0.body }),
              let end = watch.find(body), end <= body.count else { return }
        let stops = state.withLock { s -> Bool? in
            guard !s.prefixFound else { return nil }
            s.prefixFound = true
            return watch.stops && s.expectedLength == nil
        }
        guard let stops else { return }
        let prefix = Data(body.prefix(end))
        if stops {
            finish(.success(prefix), stoppedEarly: true)
        } else {
            watch.onPrefix(prefix)
        }
    }

    /// Completes with the body received, when it is whole: a continued body must reach the length
    /// its `Content-Range` gave.
    func succeed() {
        let (body, expected) = state.withLock { ($0.body, $0.expectedLength) }
        if let expected, body.count != expected {
            return finish(.failure(HTTPLoaderError(.invalidResponse,
                "GET \(url.absoluteString) ended a continued body at \(body.count) bytes; its Content-Range promised \(expected)",
                url: url)))
        }
        finish(.success(body))
    }

    /// Ends the exchange once: resumes the caller, stops the timer, cancels the task on failure.
    /// `stoppedEarly`: the result is a prefix; the transfer stops and its bytes are kept.
    func finish(_ result: Result<Data, any Error>, stoppedEarly: Bool = false) {
        let effects = state.withLock { s -> (CheckedContinuation<Data, any Error>?, URLSessionDataTask?, Task<Void, Never>?, PartialTransfer?)? in
            guard s.phase != .done else { return nil }
            s.phase = .done
            let continuation = s.continuation
            if continuation == nil { s.earlyResult = result }
            var kept: PartialTransfer?
            if stoppedEarly, let validator = s.validator {
                kept = PartialTransfer(body: s.body, validator: validator, totalLength: s.totalLength)
            } else if case .failure(let error) = result, Self.keepsBytes(after: error) {
                // The bytes of this response if it began one that may be continued, else those it was to continue.
                if let validator = s.validator, !s.body.isEmpty {
                    kept = PartialTransfer(body: s.body, validator: validator, totalLength: s.totalLength)
                } else {
                    kept = s.resume
                }
            }
            let effects = (continuation, s.task, s.timer, kept)
            s.continuation = nil
            s.task = nil
            s.timer = nil
            s.body = Data()
            s.resume = nil
            return effects
        }
        guard let (continuation, task, timer, kept) = effects else { return }
        // Kept before the caller resumes, so a load that follows at once finds the bytes; a whole
        // body makes bytes kept meanwhile by another load of the URL useless.
        if let kept {
            partials?.keep(kept, for: url)
        } else if case .success = result, !stoppedEarly {
            _ = partials?.take(url)
        }
        continuation?.resume(with: result)
        timer?.cancel()
        // A failure (cancellation, timeout, size limit, bad status) stops the transfer and closes its connection.
        if case .failure = result { task?.cancel() }
        if stoppedEarly { task?.cancel() }
    }

    /// Whether a transfer stopped by `error` keeps its bytes: a cancellation, or a failure that
    /// another attempt may get past (a timeout, a lost connection, a server error).
    private static func keepsBytes(after error: any Error) -> Bool {
        if error is CancellationError { return true }
        guard let error = error as? HTTPLoaderError else { return false }
        return [.connectTimeout, .totalTimeout, .connectionFailed, .serverError].contains(error.code)
    }
}

/// A prefix of a body that a request looks for as the bytes arrive: a progressive JPEG's first scan,
/// or a fixed number of bytes.
struct PrefixWatch: Sendable {
    /// The prefix's length in the body so far, or nil while it is not there.
    let find: @Sendable (Data) -> Int?
    /// Whether the request ends once the prefix is there (a preview load), returning it.
    let stops: Bool
    /// Called once with the prefix, for a watch that does not stop (a full load's preview).
    let onPrefix: @Sendable (Data) -> Void
}
