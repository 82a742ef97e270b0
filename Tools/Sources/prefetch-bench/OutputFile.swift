import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

extension OutputFile {
    /// `path` as an absolute, standardized path: what the bench prints after writing it.
    static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The git work tree that holds `path`'s folder (a folder with a `.git` entry, the folder
    /// itself or one above it), or nil: a generated file there would show up among the sources.
    static func sourceTree(holding path: String) -> String? {
        var folder = URL(fileURLWithPath: absolutePath(path)).deletingLastPathComponent()
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(".git").path) { return folder.path }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// Writes `data` to `path` (see ``write(_:to:)``), then says on standard output where it
    /// went, by its absolute path, and on standard error when that is inside a git work tree.
    static func write(_ data: Data, to path: String, what: String) throws {
        try write(data, to: path)
        let absolute = absolutePath(path)
        print("wrote \(what) to \(absolute)")
        if !path.hasPrefix("/dev/"), let tree = sourceTree(holding: path) {
            FileHandle.standardError.write(Data("prefetch-bench: note: \(absolute) is inside the git work tree \(tree); give a path outside it (for example /tmp/\(URL(fileURLWithPath: path).lastPathComponent)) to keep generated files out of the sources\n".utf8))
        }
    }
}

/// The bench's progress line on standard error: drawn (with `\r` and an erase-line escape code)
/// only when standard error is a terminal, never into a redirected file or a pipe.
struct ProgressLine {
    /// Whether the line is drawn.
    let isShown: Bool

    /// A progress line, shown unless `quiet` or standard error is not a terminal.
    init(quiet: Bool, isTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        isShown = !quiet && isTerminal
    }

    /// Draws `text` over the previous progress.
    func show(_ text: String) {
        if isShown { FileHandle.standardError.write(Data("\r\(text)\u{1B}[K".utf8)) }
    }

    /// Erases the line.
    func clear() {
        if isShown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
