import Foundation
import PrefetchHTTP
import PrefetchKit

/// Loads pages from a server's `GET /items?offset=&limit=` with an `HTTPLoader`.
///
/// ```swift
/// let pages = try HTTPFeedPageLoader(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// let feed = try PagedFeed(loader: pages)
/// ```
public struct HTTPFeedPageLoader: FeedPageLoader {
    private let loader: HTTPLoader<URL>
    /// The server's base URL; pages come from `<baseURL>/items`.
    let baseURL: URL

    /// Creates a page loader for the server at `baseURL`.
    /// - Throws: `HTTPLoaderError` for a base URL that is not http(s) with a host, or a bad configuration.
    public init(baseURL: URL, configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration()) throws {
        try HTTPLoader<URL>.validate(baseURL)
        self.baseURL = baseURL
        self.loader = try HTTPLoader<URL>(configuration: configuration)
    }

    /// Loads and decodes one page.
    /// - Throws: `HTTPLoaderError` (a body that does not decode, or breaks a rule of
    ///   ``FeedPage/decode(_:offset:limit:)``, is `HTTPLoaderError.Code.invalidResponse`).
    public func loadPage(offset: Int, limit: Int) async throws -> FeedPage {
        var components = URLComponents(url: baseURL.appendingPathComponent("items"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "offset", value: "\(offset)"), URLQueryItem(name: "limit", value: "\(limit)")]
        let url = components.url!
        let data = try await loader.data(from: url)
        do {
            return try FeedPage.decode(data, offset: offset, limit: limit)
        } catch {
            throw HTTPLoaderError(.invalidResponse, "GET \(url.absoluteString) returned a body that is not a valid feed page", url: url, cause: error)
        }
    }
}
