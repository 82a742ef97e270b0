import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PrefetchKit

/// The session's delegate: routes each task's callbacks to its ``Exchange``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked([Int: Exchange]())
    /// The loader's configured header fields, sent with each request but never across origins.
    let headers: [String: String]
    /// The loader's invalidation flag: once set, a cancelled task was cancelled by `invalidate()`.
    private let invalidated: Locked<Bool>

    init(headers: [String: String], invalidated: Locked<Bool>) {
        self.headers = headers
        self.invalidated = invalidated
    }

    func register(_ exchange: Exchange, for taskIdentifier: Int) {
        exchanges.withLock { $0[taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> Exchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let exchange = exchange(for: dataTask) else { return completionHandler(.cancel) }
        exchange.receivedHead(of: dataTask)
        let url = exchange.url
        guard let http = response as? HTTPURLResponse else {
            exchange.finish(.failure(HTTPLoaderError(.invalidResponse,
                "GET \(url.absoluteString) did not get an HTTP response", url: url)))
            return completionHandler(.cancel)
        }
        let status = http.statusCode
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        switch status {
        case 200..<300:
            if let failure = exchange.acceptBody(of: http) {
                exchange.finish(.failure(failure))
                return completionHandler(.cancel)
            }
            completionHandler(.allow)
        case 416 where exchange.isResuming:
            // The kept bytes no longer fit the resource: the loader asks again for the whole body.
            exchange.finish(.failure(AskAgainFromFirstByte()))
            completionHandler(.cancel)
        case 500..<600:
            exchange.rejectedHead(status: status)
            exchange.finish(.failure(HTTPLoaderError(.serverError,
                "GET \(url.absoluteString) answered \(status) \(reason): a server error, worth retrying",
                url: url, statusCode: status)))
            completionHandler(.cancel)
        default:
            exchange.rejectedHead(status: status)
            exchange.finish(.failure(HTTPLoaderError(.clientError,
                "GET \(url.absoluteString) answered \(status) \(reason): only 2xx responses are loaded",
                url: url, statusCode: status)))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let exchange = exchange(for: task), let target = request.url else { return completionHandler(nil) }
        // The origin that credentials were meant for is the one this hop left: a later hop back
        // to it does not regain them once a hop went elsewhere.
        let from = response.url ?? exchange.url
        switch RedirectRule.decide(from: from, to: target) {
        case .follow(let keepsCredentials):
            let keeps = keepsCredentials && exchange.credentialsStillAllowed
            if !keeps { exchange.dropCredentials() }
            completionHandler(RedirectRule.request(request, keepsCredentials: keeps, configured: headers))
        case .refuse(let error):
            exchange.finish(.failure(error))
            completionHandler(nil)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        guard let error else { return exchange.succeed() }
        // Read outside the exchanges' lock: the loader takes this one first, then that one.
        let invalidated = invalidated.withLock { $0 }
        exchange.finish(.failure(Self.translate(error, url: exchange.url, invalidated: invalidated)))
    }

    /// The loader's error for a task's `error`; `invalidated` when the loader was invalidated, so
    /// that the tasks `invalidate()` cancels fail with ``HTTPLoaderError/Code/invalidated``.
    static func translate(_ error: any Error, url: URL, invalidated: Bool = false) -> any Error {
        guard let urlError = error as? URLError else {
            return HTTPLoaderError(.connectionFailed, "GET \(url.absoluteString) failed", url: url, cause: error)
        }
        #if !canImport(FoundationNetworking)   // Apple's URLError: Linux's has no such reason
        if urlError.networkUnavailableReason == .constrained {
            // Low Data Mode refused a prefetch; asking again at once is refused again.
            return HTTPLoaderError(.clientError,
                "GET \(url.absoluteString) was a prefetch, refused by the system on a constrained network (Low Data Mode): not retried",
                url: url, cause: error)
        }
        #endif
        switch urlError.code {
        case .cancelled where invalidated:
            return HTTPLoaderError(.invalidated,
                "HTTPLoader was invalidated while GET \(url.absoluteString) was in flight", url: url, cause: error)
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return HTTPLoaderError(.totalTimeout, "GET \(url.absoluteString) timed out in URLSession", url: url, cause: error)
        case .unsupportedURL:
            return HTTPLoaderError(.unsupportedScheme,
                "HTTPLoader cannot load \(url.absoluteString): the scheme must be http or https", url: url, cause: error)
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            return HTTPLoaderError(.invalidResponse,
                "GET \(url.absoluteString) got a response that is not valid HTTP", url: url, cause: error)
        default:
            return HTTPLoaderError(.connectionFailed,
                "GET \(url.absoluteString) lost its connection (refused, reset or closed early)", url: url, cause: error)
        }
    }
}
