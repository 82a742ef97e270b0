/// How much of an item a load brings: a preview a cell can show at once, or the full value.
///
/// On a slow link the bytes per cell decide what the user sees. A preview (the first scan of a
/// progressive JPEG, a thumbnail, a placeholder the feed carries) costs a fraction of the
/// full value's bytes and fills a cell with something; the full value replaces it later. A
/// fetcher whose loader is a ``PreviewLoader`` loads each item at the quality its interests ask
/// for, keeps in its cache the quality it holds, and upgrades an item when a request for
/// ``full`` finds only a preview.
public enum FetchQuality: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// A preview: enough to show something in the cell.
    case preview = 0
    /// The full value.
    case full = 1

    /// Orders ``preview`` before ``full``.
    public static func < (lhs: FetchQuality, rhs: FetchQuality) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `preview` or `full`.
    public var description: String { self == .preview ? "preview" : "full" }
}
