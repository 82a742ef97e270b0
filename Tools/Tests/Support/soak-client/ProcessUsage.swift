import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resident memory and open descriptors of a process, from /proc.
struct ProcessUsage {
    static func residentMiB(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib / 1024
    }

    static func openFiles(_ pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }
}

extension Soak {
    /// Both processes' memory and descriptors, once a second of scrolling and at the end.
    func sample(server: ServerChild) {
        let me = getpid()
        let fds = ProcessUsage.openFiles(me) ?? 0
        if clientFDs.baseline == 0 { clientFDs.baseline = fds }
        clientFDs.peak = max(clientFDs.peak, fds)
        sampleClientMemory()
        if let pid = server.pid {
            serverRSSPeak = max(serverRSSPeak, ProcessUsage.residentMiB(pid) ?? 0)
            serverFDsPeak = max(serverFDsPeak, ProcessUsage.openFiles(pid) ?? 0)
        }
    }

    /// The client's resident memory, every frame (values of a MiB come and go between two
    /// seconds); the first sample, before any value arrived, is the baseline.
    func sampleClientMemory() {
        let rss = ProcessUsage.residentMiB(getpid()) ?? 0
        if clientRSS.baseline == 0 { clientRSS.baseline = rss }
        clientRSS.peak = max(clientRSS.peak, rss)
    }
}
