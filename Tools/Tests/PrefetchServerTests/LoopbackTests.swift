import PrefetchServer
import Testing

@Suite("Loopback addresses")
struct LoopbackTests {
    @Test("loopback hosts are recognised; anything else gets the warning", arguments: [
        ("127.0.0.1", true), ("127.8.9.10", true), ("localhost", true), ("LOCALHOST", true), ("::1", true), ("[::1]", true),
        ("0.0.0.0", false), ("192.168.1.10", false), ("10.0.0.1", false), ("::", false), ("example.com", false),
        ("127.0.0", false), ("127.0.0.1.5", false), ("1270.0.0.1", false), ("", false),
    ])
    func loopback(host: String, isLoopback: Bool) {
        #expect(ServerConfiguration.isLoopback(host: host) == isLoopback, "\(host)")
    }
}
