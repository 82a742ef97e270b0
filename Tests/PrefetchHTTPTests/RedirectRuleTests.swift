import Foundation
@testable import PrefetchHTTP
import Testing

/// Finding 3 of issue 12, the rule on its own (no server): credentials must not follow a redirect
/// to another origin, and an https request must not be redirected to plain http. The loopback
/// tests that send real redirects live in the tools package (`Tools/Tests/PrefetchHTTPLoopbackTests`).
@Suite("HTTPLoader redirect rule")
struct RedirectRuleTests {
    @Test("the redirect rule: same origin keeps credentials, another origin drops them, https to http is refused",
          arguments: [
            ("http://a.example/x", "http://a.example/y", "keep"),
            ("http://a.example/x", "http://A.EXAMPLE:80/y", "keep"),
            ("https://a.example/x", "https://a.example:443/y", "keep"),
            ("http://a.example/x", "http://b.example/y", "strip"),
            ("http://a.example/x", "http://a.example:8080/y", "strip"),
            ("http://a.example/x", "https://a.example/y", "strip"),
            ("https://a.example/x", "http://a.example/y", "refuse"),
            ("https://a.example/x", "http://b.example/y", "refuse"),
            ("http://a.example/x", "ftp://a.example/y", "refuse"),
          ])
    func rule(from: String, to: String, expected: String) throws {
        let decision = RedirectRule.decide(from: URL(string: from)!, to: URL(string: to)!)
        switch decision {
        case .follow(let keepsCredentials): #expect((keepsCredentials ? "keep" : "strip") == expected, "\(from) → \(to)")
        case .refuse(let error):
            #expect(expected == "refuse", "\(from) → \(to): \(error)")
            #expect(error.message.contains(to), "\(error.message)")
            #expect(error.isRetryable == false)
        }
    }
}
