import Foundation

extension FileHandle {
    /// Reads bytes up to the first newline or end of file (blocking), as a string without the newline.
    public func readLine() -> String? {
        var bytes: [UInt8] = []
        while let byte = try? read(upToCount: 1)?.first {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }
}
