import Foundation

/// A key a ``DiskCache`` can store: anything that turns into bytes, one-to-one.
///
/// The bytes are stored in a `BLOB` column and compared byte for byte; they are never used as a
/// file name or path, so any key (`"../../etc/passwd"`, an empty string, binary data) is safe.
/// Two keys that are equal must give the same bytes, and two different keys different bytes.
///
/// ```swift
/// struct PhotoID: DiskCacheKey {
///     var raw: UInt64
///     var diskCacheKeyData: Data { withUnsafeBytes(of: raw.bigEndian) { Data($0) } }
/// }
/// ```
public protocol DiskCacheKey: Hashable, Sendable {
    /// The bytes that identify this key in the database.
    var diskCacheKeyData: Data { get }
}

extension Data: DiskCacheKey {
    /// The data itself.
    public var diskCacheKeyData: Data { self }
}

extension String: DiskCacheKey {
    /// The string's UTF-8 bytes.
    public var diskCacheKeyData: Data { Data(utf8) }
}

extension Int: DiskCacheKey {
    /// The integer's 8 bytes, big-endian.
    public var diskCacheKeyData: Data { withUnsafeBytes(of: Int64(self).bigEndian) { Data($0) } }
}

extension URL: DiskCacheKey {
    /// The UTF-8 bytes of the URL's absolute string.
    public var diskCacheKeyData: Data { Data(absoluteString.utf8) }
}

extension UUID: DiskCacheKey {
    /// The UUID's 16 bytes.
    public var diskCacheKeyData: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}
