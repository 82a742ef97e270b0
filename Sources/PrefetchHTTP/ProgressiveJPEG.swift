import Foundation

/// Finds where a progressive JPEG's first scan ends, so that a loader can fetch just that prefix
/// as a preview and the rest later.
///
/// A progressive JPEG is a series of scans; its first scan decodes to the whole picture at low
/// detail, and fits in the first 7-23 % of the file (7-10 % for photos, more for thumbnails, in the
/// repository's fixtures: `Benchmarks/NOTES.md`). The prefix up to the second
/// start-of-scan marker (`0xFFDA`) holds the frame header, the tables and the first scan, which is
/// what a decoder needs to draw that first approximation.
///
/// ```swift
/// let head = Data([0xFF, 0xD8, 0xFF, 0xD9])             // SOI, EOI: no scan at all
/// let end = ProgressiveJPEG.firstScanEnd(in: head)        // nil
/// ```
///
/// The walk reads marker segments by their length fields, and inside entropy-coded data skips
/// stuffed bytes (`0xFF00`), restart markers (`0xFFD0`-`0xFFD7`) and fill bytes (`0xFF` runs). It
/// never reads outside the bytes given and never traps, whatever they hold.
public enum ProgressiveJPEG {
    /// The offset of the second start-of-scan marker in `bytes` (its `0xFF`, after any fill bytes,
    /// so `bytes[end]` is `0xFF` and `bytes[end + 1]` is `0xDA`): the length of the prefix that
    /// holds the first scan; `nil` when the bytes are not a progressive JPEG (no start-of-image
    /// marker, a baseline, extended or lossless frame, a malformed segment) or end before the
    /// second scan starts (a prefix too short, or an image of one scan).
    ///
    /// `bytes` may be a prefix of the file: the answer for a prefix that reaches the marker is the
    /// answer for the whole file.
    public static func firstScanEnd(in bytes: Data) -> Int? {
        if case .ends(let offset) = scan(bytes) { return offset }
        return nil
    }

    /// `firstScanEnd(in:)` for an array of bytes.
    public static func firstScanEnd(in bytes: [UInt8]) -> Int? {
        if case .ends(let offset) = bytes.withUnsafeBytes({ walk($0) }) { return offset }
        return nil
    }

    /// What the bytes so far say about the first scan's end.
    enum Scan: Equatable, Sendable {
        /// The first scan ends at this offset.
        case ends(Int)
        /// The bytes stop before the answer: more may tell.
        case needsMore
        /// No more bytes can make it a progressive JPEG with two scans.
        case never
    }

    /// The first scan's end in `bytes`, or whether more bytes could find it.
    static func scan(_ bytes: Data) -> Scan {
        bytes.withUnsafeBytes { walk($0) }
    }

    /// The walk itself, on raw bytes.
    static func walk(_ bytes: UnsafeRawBufferPointer) -> Scan {
        let count = bytes.count
        guard count >= 2 else { return count == 0 || bytes[0] == 0xFF ? .needsMore : .never }
        guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .never }
        var i = 2
        var scans = 0
        var progressive = false
        while i < count {
            // A marker: 0xFF, any fill bytes 0xFF, then the code.
            guard bytes[i] == 0xFF else { return .never }
            while i < count, bytes[i] == 0xFF { i += 1 }
            guard i < count else { return .needsMore }
            // The marker proper: the 0xFF right before its code (fill bytes stay in the prefix).
            let markerStart = i - 1
            let code = bytes[i]
            i += 1
            switch code {
            case 0x00: return .never                      // a stuffed byte outside entropy-coded data
            case 0xD8, 0x01, 0xD0...0xD7: continue        // no payload (a stray RST is tolerated)
            case 0xD9: return .never                      // end of image before a second scan
            default: break
            }
            if code == 0xDA {
                scans += 1
                if scans == 2 { return progressive ? .ends(markerStart) : .never }
                // A scan before any frame header is not a JPEG we can preview.
                guard progressive else { return .never }
            }
            guard i + 1 < count else { return .needsMore }
            let length = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            guard length >= 2 else { return .never }
            switch code {
            case 0xC2, 0xC6, 0xCA, 0xCE: progressive = true
            case 0xC0...0xCF where code != 0xC4 && code != 0xC8 && code != 0xCC: return .never
            default: break
            }
            i += length
            guard code == 0xDA else { continue }
            // Entropy-coded data runs to the first 0xFF followed by neither 0x00 (a stuffed byte)
            // nor an RST code: a marker, perhaps after fill bytes, which the loop above reads.
            while i + 1 < count {
                if bytes[i] == 0xFF {
                    let next = bytes[i + 1]
                    guard next == 0x00 || (0xD0...0xD7).contains(next) else { break }
                    i += 2
                } else {
                    i += 1
                }
            }
            guard i + 1 < count else { return .needsMore }
        }
        return .needsMore
    }
}
