import Foundation

/// Writes the bench's output files (`--json`, `--report`).
///
/// A regular file (or a new one) is written atomically: a temporary file renamed over the
/// target, so a reader never sees half a report. Anything else that already exists at the path,
/// such as `/dev/null`, `/dev/stdout` or a named pipe, is opened and written in place: renaming a
/// file over a device would replace the device (for root, `/dev/null` itself).
enum OutputFile {
    static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        if let type, type != .typeRegular {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
        } else {
            try data.write(to: url, options: .atomic)
        }
    }
}
