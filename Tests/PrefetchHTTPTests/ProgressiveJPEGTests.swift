import Foundation
@testable import PrefetchHTTP
import PrefetchKit
import Testing

/// The first scan's end on the committed fixtures (compared with what the generating script found,
/// whose `--check` has libjpeg decode each prefix), on hand-made and corrupted inputs, and the
/// configuration errors of ``HTTPPreviewLoader``.
@Suite("Progressive JPEG first scans")
struct ProgressiveJPEGTests {
    /// `Tools/Fixtures` in this repository.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/Fixtures")

    /// The rows of `first-scans.txt`: file name, size, first scan's end.
    static func table() throws -> [(name: String, size: Int, end: Int)] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("first-scans.txt"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), Int(parts[1])!, Int(parts[2])!)
        }
    }

    static func photo(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.deletingLastPathComponent()
            .appendingPathComponent("Sources/PrefetchServer/Photos").appendingPathComponent(name))
    }

    @Test("every fixture's first scan ends where the script (and libjpeg) found it, in every prefix that reaches it")
    func fixtures() throws {
        let rows = try Self.table()
        #expect(rows.count == 12)
        for row in rows {
            let data = try Self.photo(row.name)
            #expect(data.count == row.size, "\(row.name)")
            #expect(ProgressiveJPEG.firstScanEnd(in: data) == row.end, "\(row.name)")
            #expect(ProgressiveJPEG.firstScanEnd(in: [UInt8](data)) == row.end, "\(row.name)")
            // A prefix that holds the marker's two bytes answers the same; a shorter one asks for more.
            #expect(ProgressiveJPEG.firstScanEnd(in: data.prefix(row.end + 2)) == row.end)
            #expect(ProgressiveJPEG.scan(data.prefix(row.end + 1)) == .needsMore)
            #expect(ProgressiveJPEG.scan(data.prefix(row.end / 2)) == .needsMore)
            // The end is a start-of-scan marker.
            #expect(data[row.end] == 0xFF && data[row.end + 1] == 0xDA)
        }
    }

    /// SOI, a segment of `code` with a 4-byte payload, and EOI.
    static func jpeg(frame: UInt8, scans: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46]   // SOI, APP0 of 2 bytes
        bytes += [0xFF, frame, 0x00, 0x05, 1, 2, 3]                             // a frame header
        for scan in scans { bytes += [0xFF, 0xDA, 0x00, 0x03, 9] + scan }
        return bytes + [0xFF, 0xD9]
    }

    @Test("entropy-coded data: stuffed bytes, restart markers and fill bytes are skipped")
    func entropyCodedData() {
        let first: [UInt8] = [1, 0xFF, 0x00, 2, 0xFF, 0xD3, 3, 0xFF, 0x00]
        let bytes = Self.jpeg(frame: 0xC2, scans: [first, [4, 5]])
        let second = 2 + 4 + 2 + 5 + 2 + 5 + first.count   // SOI, APP0, SOF2, SOS header, data
        #expect(ProgressiveJPEG.firstScanEnd(in: bytes) == second)
        // Fill bytes before the second marker stay in the prefix: the marker is the 0xFF before 0xDA.
        var filled = Self.jpeg(frame: 0xC2, scans: [first])
        filled.removeLast(2)
        filled += [0xFF, 0xFF, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
        #expect(ProgressiveJPEG.firstScanEnd(in: filled) == second + 2)
        // A DHT between the scans belongs to the prefix.
        var tables = Self.jpeg(frame: 0xC2, scans: [first])
        tables.removeLast(2)
        tables += [0xFF, 0xC4, 0x00, 0x03, 7, 0xFF, 0xDA, 0x00, 0x02]
        #expect(ProgressiveJPEG.firstScanEnd(in: tables) == second + 5)
    }

    @Test("baseline, lossless, one-scan, non-JPEG, truncated and malformed inputs have no first-scan end",
          arguments: [
              ("baseline", jpeg(frame: 0xC0, scans: [[1], [2]])),
              ("extended sequential", jpeg(frame: 0xC1, scans: [[1], [2]])),
              ("lossless", jpeg(frame: 0xC3, scans: [[1], [2]])),
              ("one scan", jpeg(frame: 0xC2, scans: [[1, 2, 3]])),
              ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
              ("empty", []),
              ("SOI only", [0xFF, 0xD8]),
              ("length below 2", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0, 0]),
              ("length past the end", [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF, 0]),
              ("a scan before the frame", [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 1, 0xFF, 0xDA, 0x00, 0x02]),
              ("garbage between segments", [0xFF, 0xD8, 0x12, 0x34]),
              ("all fill", [UInt8](repeating: 0xFF, count: 40)),
          ] as [(String, [UInt8])])
    func noEnd(name: String, bytes: [UInt8]) {
        #expect(ProgressiveJPEG.firstScanEnd(in: bytes) == nil, "\(name)")
        #expect(ProgressiveJPEG.firstScanEnd(in: Data(bytes)) == nil, "\(name)")
    }

    @Test("a baseline or garbage body is never a first scan, however many bytes come; a short prefix may be")
    func verdicts() throws {
        #expect(ProgressiveJPEG.scan(Data(Self.jpeg(frame: 0xC0, scans: [[1]]))) == .never)
        #expect(ProgressiveJPEG.scan(Data([0x47, 0x49, 0x46])) == .never)
        #expect(ProgressiveJPEG.scan(Data([0xFF])) == .needsMore)
        #expect(ProgressiveJPEG.scan(try Self.photo("photo-0.jpg").prefix(300)) == .needsMore)
    }

    @Test("corrupted fixtures never trap and never answer past their bytes")
    func corrupted() throws {
        var generator = SplitMix(seed: 36)
        let data = [UInt8](try Self.photo("photo-3.jpg"))
        for _ in 0..<400 {
            var bytes = data
            let cut = Int(generator.next() % UInt64(bytes.count))
            bytes.removeLast(bytes.count - cut)
            for _ in 0..<Int(generator.next() % 8) where !bytes.isEmpty {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let end = ProgressiveJPEG.firstScanEnd(in: bytes) {
                #expect(end >= 2 && end + 1 < bytes.count && bytes[end] == 0xFF && bytes[end + 1] == 0xDA)
            }
        }
    }

    /// A fuzzer finding (FuzzProgressiveJPEG): fill bytes (0xFF 0xFF) before the second scan's
    /// marker; the end found must be the 0xFF right before 0xDA.
    static let fillBeforeMarker = [
        "/9j/4AAQSkaARgABAQAAAQAB////2wBDAAkGBwgHBgkIBwgKCgkLDRYPDQwMDRsUFRAWIB0iIiAdHx8kKDQsJCYxJx8fLT0t",
        "MTU3Ojo6Iys/RD84QzQ5Ojf/2wBDAQoKCg0MDRoPDxo3JR8lNzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3NzU3Nzc3Nzc3",
        "Nzc3Nzc3Nzc3Nzc3Nzf/wgARCADIAMgDASIAAhEBAxEB/8QAGgABAAMBAQEAAAAAAAAAAQAAAAEDBAIA+v/EABkBAQADAQEA",
        "AAAAAAAAAAAAAAABAgMEBf/aAAwDAQACEAMQAAAB9KaI87e9lisiQBjFcLl+jh4sMb4W8yPTjo7PNuoT5U+oPLelJ5kbMmkR",
        "JYBbfj0TeyEzcDGK4bNWPbyy565paZ5BOaV3PhV2p9PHh+1W1WDZj6IDSAALLM6bamUkIz168urluIpPUTBz8/63iXoF6T6H",
        "nWRPt4dmPSwaQAAiQABr0UNsb3NlZJe+a2hnijR3nvT5vl+p5emYTCYk9nNqy3uGkAAAgAczbXbiY6bIyqtl3m020weEHtVa",
        "hRtZh1EHqs4KpwqcLgKqixQwOe50ocYtTCCI///a7IE+ZudxEdc6fjPoY+uyBLaJ4l5JpCoYaOi8s7ICu5uVQruQvMyPw9kL",
        "XFf1CXl6xd8PZC0hIbc9rVGjX4wxV8X/AD11TXlq9hXsK9hXsT/7NqtVqtVsmxat+sdSaaj6p1KHv6p1KHuTnBod5BXucmx0",
        "DXvOpM4FU91oe4uIQQUOJa7fcdTG476nHwAoe5OcGh3kFe5ybI/yhDGkzgVT3Wh7i4hBBQ4lrt9x1MbjvqcfAAgBAQABBQLN",
        "9Ql5esXfD2QtISG3Pa1Ro1+MMVfF/wA9dU15avYV7CvYV7E/+zarVarVbJsWrfrHUmmo+qdSh7+qdSh7k5waHeQV7nJsdA17",
        "zqTOBAMBAQAAAAAAAAABAAIDESAEEDESEyFBMDJRFCL/2gAIAQMBAT8B6xi7LpVbRamj0uQcDxsTSJvEYO+yDiE0mvjGnLvN",
        "r+Q/qAoKlSrBpwaKGHUgbRw6iuvYbu2CPwWgncqtjk1pdwu25dpyji8/6Ta03hdxDBQNDAsLDKY0neriqveSaw==",
    ].joined()

    @Test("fuzzer finding: fill bytes before the second SOS; the end is the 0xFF right before 0xDA")
    func fillBytesFinding() throws {
        let bytes = try #require(Data(base64Encoded: Self.fillBeforeMarker))
        let end = try #require(ProgressiveJPEG.firstScanEnd(in: bytes))
        #expect(bytes[end] == 0xFF && bytes[end + 1] == 0xDA)
        #expect(ProgressiveJPEG.firstScanEnd(in: bytes.prefix(end + 2)) == end)
        #expect(ProgressiveJPEG.firstScanEnd(in: bytes.prefix(end + 1)) == nil)
    }

    /// A small seeded generator for the corruption test.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("a prefix preview needs a loader that resumes; a first-scan window needs a byte")
    func configurationErrors() throws {
        var noResume = HTTPLoaderConfiguration()
        noResume.maxPartialTransfers = 0
        let plain = try HTTPLoader<Int>(configuration: noResume) { _ in URL(string: "http://127.0.0.1:1/")! }
        defer { plain.invalidate() }
        let error = #expect(throws: HTTPLoaderError.self) { try HTTPPreviewLoader(plain, preview: .firstScan()) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("maxPartialTransfers (0)") == true)
        // A variant needs no resuming.
        _ = try HTTPPreviewLoader(plain, preview: .variant { _ in URL(string: "http://127.0.0.1:1/t")! })

        let resuming = try HTTPLoader<Int> { _ in URL(string: "http://127.0.0.1:1/")! }
        defer { resuming.invalidate() }
        let window = #expect(throws: HTTPLoaderError.self) { try HTTPPreviewLoader(resuming, preview: .firstScan(window: 0)) }
        #expect(window?.message.contains("window: 0") == true)
    }

    @Test("a prefix length below 1 fails the load, naming the id and the length")
    func badPrefixLength() async throws {
        let base = try HTTPLoader<Int> { _ in URL(string: "http://127.0.0.1:1/")! }
        defer { base.invalidate() }
        let loader = try HTTPPreviewLoader(base, preview: .prefix { _ in -3 })
        let error = await #expect(throws: HTTPLoaderError.self) {
            _ = try await loader.load(7, quality: .preview, preview: { _ in })
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("-3 bytes for 7") == true)
    }
}
