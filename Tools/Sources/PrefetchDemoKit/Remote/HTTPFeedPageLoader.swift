import Foundation
import PrefetchFeed
import PrefetchHTTP
import PrefetchKit

/// Loads pages of ``FeedItem``s from prefetch-server's `GET /items?offset=&limit=` with an `HTTPLoader`.
package struct HTTPFeedPageLoader: FeedPageLoader {
    private let loader: HTTPLoader<URL>
    /// The server's base URL; pages come from `<baseURL>/items`.
    let baseURL: URL

    /// Creates a page loader for the server at `baseURL`.
    /// - Throws: `HTTPLoaderError` for a base URL that is not http(s) with a host, or a bad configuration.
    package init(baseURL: URL, configuration: HTTPLoaderConfiguration = HTTPLoaderConfiguration()) throws {
        self.baseURL = try HTTPLoader<URL>.url(baseURL.absoluteString)
        self.loader = try HTTPLoader<URL>(configuration: configuration)
    }

    /// Loads and decodes one page.
    /// - Throws: `HTTPLoaderError` (a body that does not decode, or breaks a rule of
    ///   `FeedPage<FeedItem>.decode(_:offset:limit:)`, is `HTTPLoaderError.Code.invalidResponse`,
    ///   which the feed's retry policy retries).
    package func loadPage(offset: Int, limit: Int) async throws -> FeedPage<FeedItem> {
        var components = URLComponents(url: baseURL.appendingPathComponent("items"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "offset", value: "\(offset)"), URLQueryItem(name: "limit", value: "\(limit)")]
        let url = components.url!
        let data = try await loader.data(from: url)
        do {
            return try FeedPage<FeedItem>.decode(data, offset: offset, limit: limit)
        } catch {
            throw HTTPLoaderError(.invalidResponse, "GET \(url.absoluteString) returned a body that is not a valid feed page", url: url, cause: error)
        }
    }
}
