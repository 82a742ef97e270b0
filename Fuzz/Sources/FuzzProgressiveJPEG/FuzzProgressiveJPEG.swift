import Foundation
import PrefetchHTTP

/// libFuzzer entry point: any bytes as a JPEG, or a prefix of one, for
/// `ProgressiveJPEG.firstScanEnd(in:)`. It must never trap; an end it finds must be a
/// start-of-scan marker inside the bytes, the same for `Data` and `[UInt8]` and for every longer
/// prefix of the input, and no prefix shorter than the marker may find one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProgressiveJPEG(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
    let end = ProgressiveJPEG.firstScanEnd(in: bytes)
    precondition(ProgressiveJPEG.firstScanEnd(in: Data(bytes)) == end, "Data and [UInt8] disagree")
    guard let end else { return 0 }
    precondition(end >= 4 && end + 1 < count && bytes[end] == 0xFF && bytes[end + 1] == 0xDA, "\(end) is no SOS marker")
    precondition(ProgressiveJPEG.firstScanEnd(in: Array(bytes[..<(end + 2)])) == end, "the shortest prefix disagrees")
    precondition(ProgressiveJPEG.firstScanEnd(in: Array(bytes[..<(end + 1)])) == nil, "found past the bytes")
    return 0
}
