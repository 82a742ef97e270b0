/// The fault soak's server faults, shared by `prefetch-demo --serve --server-faults` (to watch it by
/// hand) and the soak test's client (`Tools/Tests/Support/soak-client`), so both run the same faults.
package enum FaultSoak {
    /// `prefetch-server` flags: latency spikes (a p99 100 times the median), 8% 503s, 5% resets
    /// mid-body, 10% slow bodies, bodies paced to 256 KiB/s.
    package static let serverArguments = [
        "--latency-median-ms", "15", "--latency-p99-ms", "1500",
        "--error-rate", "0.08", "--reset-rate", "0.05",
        "--slow-body-rate", "0.1", "--slow-body-delay-ms", "150", "--bandwidth", "262144",
    ]

    /// When the soak kills the server and starts it again, in seconds from the start.
    package static let restartAfter = 30.0
}
