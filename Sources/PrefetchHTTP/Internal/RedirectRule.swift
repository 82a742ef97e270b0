import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an ``HTTPLoader`` does with a redirect: follow it with or without the configured
/// headers, or refuse it.
///
/// - Same origin (scheme, host and port, default ports filled in): followed with the headers.
/// - Another origin: followed without any configured header (they carry credentials such as
///   `Authorization`), and without `Authorization`, `Cookie` or `Proxy-Authorization` from anywhere.
/// - `https` to `http`, or to any scheme but http(s): refused; the load fails.
package enum RedirectRule {
    /// The decision for one redirect.
    package enum Decision {
        /// Follow it; `keepsCredentials` is false when the target is another origin.
        case follow(keepsCredentials: Bool)
        /// Do not follow it; the load fails with this error.
        case refuse(HTTPLoaderError)
    }

    /// Header fields never sent to another origin, whatever the configuration says.
    package static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Decides what to do when a request for `original` is redirected to `target`.
    package static func decide(from original: URL, to target: URL) -> Decision {
        do {
            try HTTPLoader<URL>.validate(target)
        } catch {
            return .refuse(HTTPLoaderError(.unsupportedScheme,
                "GET \(original.absoluteString) redirected to \(target.absoluteString): redirects must stay on http or https",
                url: original, cause: error))
        }
        let from = Origin(original), to = Origin(target)
        if from.scheme == "https", to.scheme != "https" {
            return .refuse(HTTPLoaderError(.insecureRedirect,
                "GET \(original.absoluteString) redirected to \(target.absoluteString): a redirect from https to plain http is refused",
                url: original))
        }
        return .follow(keepsCredentials: from == to)
    }

    /// Scheme, host and port, lowercased, with the scheme's default port.
    private struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int?

        init(_ url: URL) {
            scheme = url.scheme?.lowercased() ?? ""
            host = url.host?.lowercased() ?? ""
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
    }

    /// `proposed` with the header fields the decision allows: the configured ones within the
    /// origin, none of them (and no credential field) across origins.
    package static func request(_ proposed: URLRequest, keepsCredentials: Bool, configured: [String: String]) -> URLRequest {
        var request = proposed
        if keepsCredentials {
            for (field, value) in configured { request.setValue(value, forHTTPHeaderField: field) }
        } else {
            for field in Set(configured.keys).union(credentialFields) { request.setValue(nil, forHTTPHeaderField: field) }
        }
        return request
    }
}
