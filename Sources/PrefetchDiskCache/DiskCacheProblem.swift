import Foundation

/// Something a ``DiskCache`` handled on its own but that an app may want to know about: a corrupt
/// file it moved aside, or access times it could not save.
///
/// The cache never fails a call for these; it reports them to
/// ``DiskCacheConfiguration/problemHandler``, if one is set, and goes on. Send them to your logger:
///
/// ```swift
/// var configuration = DiskCacheConfiguration(name: "thumbnails")
/// configuration.problemHandler = { problem in
///     logger.warning("\(problem)")        // os.Logger, swift-log, print: whatever the app uses
/// }
/// ```
public struct DiskCacheProblem: Sendable, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// The database file was unreadable (not a database, or corrupt). The cache moved it, with
        /// its `-wal` and `-shm` files, to ``DiskCacheProblem/movedTo`` and created a new, empty one.
        case movedAside
        /// A read found its value, but saving the access times of recent reads failed (for example
        /// another connection held the write lock). They stay pending and are saved with the next
        /// write; the read still returned its value.
        case accessTimesNotSaved

        /// The kind's name.
        public var description: String {
            switch self {
            case .movedAside: "movedAside"
            case .accessTimesNotSaved: "accessTimesNotSaved"
            }
        }
    }

    /// What happened.
    public let kind: Kind
    /// A sentence for people.
    public let message: String
    /// The cache's database file.
    public let fileURL: URL
    /// Where the unreadable file went, for ``Kind/movedAside``; otherwise `nil`.
    public let movedTo: URL?
    /// The error behind the problem (usually GRDB's `DatabaseError`).
    public let error: any Error

    /// Creates a problem report.
    package init(kind: Kind, message: String, fileURL: URL, movedTo: URL? = nil, error: any Error) {
        self.kind = kind
        self.message = message
        self.fileURL = fileURL
        self.movedTo = movedTo
        self.error = error
    }

    /// The message with the file, where it was moved and the error, on one line.
    public var description: String {
        var text = "\(message) (path: \(fileURL.path)"
        if let movedTo { text += ", movedTo: \(movedTo.path)" }
        return text + ", error: \(error))"
    }
}
