import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrefetchKit

/// Loads bytes over HTTP(S) for an `AsyncFetcher`: a `DataLoader` with timeouts,
/// a streamed size limit, prompt cancellation and a per-host connection cap.
///
/// Load by URL, or by any id through a mapping closure:
///
/// ```swift
/// let loader = try HTTPLoader<Int> { id in URL(string: "http://127.0.0.1:8080/thumb/\(id)")! }
/// var configuration = FetcherConfiguration()
/// configuration.retry = .standard                      // retries 5xx, timeouts, resets
/// let fetcher = try AsyncFetcher(configuration: configuration, loader: loader)
/// let thumbnail = try await fetcher.value(for: 42)
/// ```
///
/// Each load is one `GET`. A 2xx response returns its body; any other status, a timeout, a
/// transport failure or an oversized body throws ``HTTPLoaderError`` (see
/// ``HTTPLoaderError/isRetryable``). Cancelling the calling task cancels the request at once
/// and closes its connection; it throws `CancellationError`.
///
/// A load stopped mid-body keeps the bytes it received, and the next load of the same URL asks
/// only for the rest (`Range` with `If-Range`), when the server named the version it sent; see
/// ``HTTPLoaderConfiguration/maxPartialTransfers``.
///
/// Built on `URLSession` (FoundationNetworking on Linux) with a data delegate, so bytes are
/// counted as they arrive. One loader owns one session: create one per configuration and keep
/// it; call ``invalidate()`` when done with it.
public final class HTTPLoader<ID: Hashable & Sendable>: DataLoader, Sendable {
    /// The loaded value: the response body.
    public typealias Value = Data

    private let session: URLSession
    private let delegate: SessionDelegate
    private let clock: any Clock<Duration>
    /// The URL for an id, as given to the initializer.
    let makeURL: @Sendable (ID) throws -> URL
    /// Set by ``invalidate()``; shared with the delegate, which then reports cancelled tasks as invalidated.
    private let isInvalidated: Locked<Bool>
    /// The stopped transfers kept for resuming, or nil when the configuration turns resuming off.
    package let partials: PartialTransferStore?
    /// The configuration the loader was created with.
    public let configuration: HTTPLoaderConfiguration

    /// Creates a loader that maps each id to a URL with `url`.
    ///
    /// - Parameters:
    ///   - configuration: timeouts and limits; checked here.
    ///   - clock: the clock that measures the timeouts (default `ContinuousClock`).
    ///   - url: the URL for an id; it may throw (for example ``HTTPLoaderError/Code/invalidURL``).
    /// - Throws: ``HTTPLoaderError`` with code ``HTTPLoaderError/Code/invalidConfiguration``.
    public init(
        configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration(),
        clock: any Clock<Duration> = ContinuousClock(),
        url: @escaping @Sendable (ID) throws -> URL
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.clock = clock
        self.makeURL = url
        partials = configuration.resumes
            ? PartialTransferStore(maxCount: configuration.maxPartialTransfers, maxBytes: configuration.maxPartialBytes) : nil
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maxConnectionsPerHost
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        // Backstops only: the loader's own timers enforce both timeouts.
        sessionConfiguration.timeoutIntervalForRequest = Self.seconds(configuration.totalTimeout) + 1
        sessionConfiguration.timeoutIntervalForResource = Self.seconds(configuration.totalTimeout) + 1
        // Headers go on each request, not on the session, so a redirect to another origin can drop them.
        let isInvalidated = Locked(false)
        self.isInvalidated = isInvalidated
        let delegate = SessionDelegate(headers: configuration.headers, invalidated: isInvalidated)
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        if !isInvalidated.withLock({ $0 }) { session.invalidateAndCancel() }
    }

    /// Loads the body at the URL for `id`.
    ///
    /// - Throws: ``HTTPLoaderError``, the mapping closure's error, or `CancellationError`.
    public func load(_ id: ID) async throws -> Data {
        try await data(from: try makeURL(id))
    }

    /// Loads the body at `url` with a `GET`.
    ///
    /// Called for an `AsyncFetcher`'s load that is a prefetch when the request is sent (its
    /// priority, ``/PrefetchKit/FetchLoadContext/livePriority``, is below
    /// ``/PrefetchKit/FetchPriority/Level/visible``), the request does not allow constrained network
    /// access on Apple platforms, so the system may refuse it in Low Data Mode (it then fails with
    /// ``HTTPLoaderError/Code/clientError`` and no status, and is not retried); every other
    /// request, a retry of a prefetch whose cell came on screen included, is sent as usual.
    ///
    /// - Throws: ``HTTPLoaderError`` (``HTTPLoaderError/Code/unsupportedScheme`` for a scheme other than
    ///   `http` or `https`, ``HTTPLoaderError/Code/invalidURL`` for a URL without a host, and so on),
    ///   or `CancellationError` when the calling task is cancelled.
    ///
    /// When an earlier load of `url` stopped mid-body (cancelled, timed out, its connection lost)
    /// and its response carried a validator, this load asks only for the rest of the body (see
    /// ``HTTPLoaderConfiguration/maxPartialTransfers``); what it returns is always the whole body.
    public func data(from url: URL) async throws -> Data {
        try await data(from: url, watch: nil)
    }

    /// ``data(from:)``, with a prefix of the body looked for as it arrives (`watch`).
    func data(from url: URL, watch: PrefixWatch?) async throws -> Data {
        try Self.validate(url)
        try Task.checkCancellation()
        guard let resume = partials?.take(url) else { return try await transfer(url, resume: nil, watch: watch).body }
        do {
            return try await transfer(url, resume: resume, watch: watch).body
        } catch is AskAgainFromFirstByte {
            return try await transfer(url, resume: nil, watch: watch).body
        }
    }

    /// One `GET` of `url`: for the bytes after `resume`'s, with `Range` and `If-Range`, when given;
    /// up to `rangeEnd` (exclusive) when given. A cancellation that came first ends it at once (the
    /// kept bytes stay kept). Returns the body (the kept bytes and those received) and what the
    /// response head said.
    func transfer(_ url: URL, resume: PartialTransfer?, rangeEnd: Int? = nil,
                  watch: PrefixWatch? = nil) async throws -> (body: Data, outcome: Exchange.Outcome) {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        for (field, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: field) }
        let asksConfiguredRange = request.value(forHTTPHeaderField: "Range") != nil
        let last = rangeEnd.map { "\($0 - 1)" } ?? ""
        if let resume {
            request.setValue("bytes=\(resume.body.count)-\(last)", forHTTPHeaderField: "Range")
            request.setValue(resume.validator.headerValue, forHTTPHeaderField: "If-Range")
        } else if rangeEnd != nil {
            request.setValue("bytes=0-\(last)", forHTTPHeaderField: "Range")
        }
        // The load's priority now, not when it started: the fetcher retries within one load, and a
        // prefetch may have become a visible cell's load meanwhile.
        let livePriority = FetchLoadContext.livePriority
        let priority = livePriority?() ?? FetchLoadContext.priority
        #if !canImport(FoundationNetworking)   // Apple's URLRequest: Linux's has no such setting
        // A prefetch may be refused in Low Data Mode; a visible cell's load never is.
        request.allowsConstrainedNetworkAccess = priority.map { $0.level >= .visible } ?? true
        #endif
        // The load's urgency for the server, and a reader that follows it while the body comes.
        var priorityNow: (@Sendable () -> FetchPriority?)?
        if configuration.sendsPriority, let priority {
            if request.value(forHTTPHeaderField: "Priority") == nil {
                request.setValue("u=\(priority.urgency)", forHTTPHeaderField: "Priority")
            }
            priorityNow = livePriority
        }
        let exchange = Exchange(url: url, maxResponseSize: configuration.maxResponseSize, resume: resume,
                                asksConfiguredRange: resume == nil && asksConfiguredRange, partials: partials,
                                onBytesReceived: configuration.onBytesReceived, priorityNow: priorityNow,
                                rangeEnd: rangeEnd, watch: watch)
        let body = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                guard exchange.install(continuation) else { return }
                // Creating a task in an invalidated session traps, so check under the same lock
                // `invalidate()` takes; registered under it too, so the cancellation of every task
                // `invalidate()` causes reaches its exchange.
                let task = isInvalidated.withLock { invalidated -> URLSessionDataTask? in
                    guard !invalidated else { return nil }
                    let task = session.dataTask(with: request)
                    delegate.register(exchange, for: task.taskIdentifier)
                    return task
                }
                guard let task else {
                    return exchange.finish(.failure(HTTPLoaderError(.invalidated,
                        "HTTPLoader was invalidated; GET \(url.absoluteString) was refused", url: url)))
                }
                exchange.attach(task: task, timer: startTimer(for: exchange))
                task.resume()
            }
        } onCancel: {
            exchange.finish(.failure(CancellationError()))
        }
        // The fetcher learns the transfer rate from what moved (`FetchStatistics.transferBytesPerSecond`).
        FetchLoadContext.recordTransferred(bytes: exchange.bytesMoved)
        return (body, exchange.outcome)
    }

    /// Cancels every request in flight and releases the session; the loads in flight and later
    /// ones fail with ``HTTPLoaderError/Code/invalidated``, and no bytes are kept for resuming.
    /// Calling it twice is harmless.
    public func invalidate() {
        let first = isInvalidated.withLock { invalidated -> Bool in
            defer { invalidated = true }
            return !invalidated
        }
        // Closed first: a transfer that ends from now on keeps nothing.
        partials?.close()
        if first { session.invalidateAndCancel() }
    }

    /// Parses and checks a URL string: absolute, `http` or `https`, with a host.
    ///
    /// ```swift
    /// let url = try HTTPLoader<URL>.url("http://127.0.0.1:8080/items")
    /// ```
    /// - Throws: ``HTTPLoaderError`` with code ``HTTPLoaderError/Code/invalidURL`` or
    ///   ``HTTPLoaderError/Code/unsupportedScheme``, naming the string and the rule.
    public static func url(_ string: String) throws -> URL {
        guard let url = URL(string: string), url.scheme != nil else {
            throw HTTPLoaderError(.invalidURL,
                "HTTPLoader cannot parse \"\(string)\" as a URL: it must be an absolute http or https URL with a host")
        }
        try validate(url)
        return url
    }

    /// Checks that `url` can be loaded: scheme `http` or `https`, and a host.
    package static func validate(_ url: URL) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            throw HTTPLoaderError(.unsupportedScheme,
                "HTTPLoader cannot load \(url.absoluteString): the scheme must be http or https, got \"\(scheme)\"",
                url: url)
        }
        guard let host = url.host, !host.isEmpty else {
            throw HTTPLoaderError(.invalidURL,
                "HTTPLoader cannot load \(url.absoluteString): the URL must have a host", url: url)
        }
    }

    private func startTimer(for exchange: Exchange) -> Task<Void, Never> {
        let clock = clock
        let connect = configuration.connectTimeout
        let total = configuration.totalTimeout
        return Task {
            do { try await Self.sleep(clock, connect) } catch { return }
            if !exchange.hasResponseHead {
                exchange.finish(.failure(HTTPLoaderError(.connectTimeout,
                    "GET \(exchange.url.absoluteString) got no response head within the connect timeout of \(connect)",
                    url: exchange.url)))
                return
            }
            do { try await Self.sleep(clock, total - connect) } catch { return }
            exchange.finish(.failure(HTTPLoaderError(.totalTimeout,
                "GET \(exchange.url.absoluteString) did not finish within the total timeout of \(total)",
                url: exchange.url)))
        }
    }

    private static func sleep<C: Clock>(_ clock: C, _ duration: Duration) async throws where C.Duration == Duration {
        try await clock.sleep(for: duration)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

extension HTTPLoader where ID == URL {
    /// Creates a loader whose ids are the URLs themselves.
    public convenience init(
        configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration(),
        clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        try self.init(configuration: configuration, clock: clock, url: { $0 })
    }
}
