import Foundation
import HTTPTypes
import PrefetchHTTP

/// The progressive JPEG fixtures `/photos` serves, read once from the module's resources: six
/// photos (200 to 1170 px wide) and a 200 px variant of each, written by
/// `Tools/Fixtures/make-progressive-jpegs.py`. Item `id` gets photo `id % 6`.
struct PhotoLibrary: Sendable {
    /// One file, with what its responses say about it.
    struct Photo: Sendable {
        /// The file's bytes.
        let bytes: Data
        /// A strong entity tag naming the file (its name and length).
        let entityTag: String
        /// Where its first scan ends (`ProgressiveJPEG.firstScanEnd(in:)`).
        let firstScanEnd: Int?
    }

    /// The response header field that tells a photo's first-scan length, for a client that wants
    /// to ask for exactly that prefix (``HTTPPreview/prefix(bytes:)``).
    static let previewLengthField = HTTPField.Name("X-Preview-Length")!

    /// How many photos the fixtures hold.
    static let count = 6

    let photos: [Photo]
    let thumbnails: [Photo]

    /// The photo for item `id`, or its thumbnail.
    func photo(_ id: Int, thumbnail: Bool) -> Photo {
        (thumbnail ? thumbnails : photos)[id % Self.count]
    }

    /// The library, or the error that says which file is missing (reported as a 500 by the route).
    static let shared: Result<PhotoLibrary, any Error> = Result { try load() }

    private static func load() throws -> PhotoLibrary {
        func read(_ name: String) throws -> Photo {
            guard let url = Bundle.module.url(forResource: name, withExtension: "jpg", subdirectory: "Photos") else {
                throw MissingPhoto(name: "\(name).jpg")
            }
            let bytes = try Data(contentsOf: url)
            return Photo(bytes: bytes, entityTag: "\"\(name)-\(bytes.count)\"", firstScanEnd: ProgressiveJPEG.firstScanEnd(in: bytes))
        }
        return PhotoLibrary(photos: try (0..<count).map { try read("photo-\($0)") },
                            thumbnails: try (0..<count).map { try read("thumb-\($0)") })
    }

    /// A fixture that is not among the module's resources.
    struct MissingPhoto: Error, CustomStringConvertible {
        let name: String
        var description: String { "prefetch-server has no \(name) among its resources (Photos/)" }
    }
}
