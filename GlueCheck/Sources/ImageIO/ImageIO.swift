// A stand-in for ImageIO on Linux: the image-source calls the documentation's image recipes make
// (PrefetchUIKit.docc: PrefetchingImages, ShowingAPreviewFirst), declared as Swift imports them from
// the iOS SDK's ImageIO/CGImageSource.h: a `CGImageSourceRef` is the class `CGImageSource`, a
// `size_t` index an `Int`, a nullable options dictionary `CFDictionary?`, a `bool` a `Bool`, an
// option key a `CFString` constant. StandInSignatures/ImageIOSignatures.swift pins each signature, and
// compiles against Apple's SDK as well. Nothing here decodes: a source keeps the bytes it was given
// and makes no image, so the examples compile and nothing runs them.
@_exported import CoreGraphics

// MARK: Image sources

/// `CGImageSource` (CGImageSourceRef): reads an image's bytes, whole or as they arrive.
public final class CGImageSource {
    /// The bytes given so far.
    fileprivate var data: Data
    /// Whether the last bytes given were the final ones (always for a source made with data).
    fileprivate var isFinal: Bool

    fileprivate init(data: Data, isFinal: Bool) {
        self.data = data
        self.isFinal = isFinal
    }
}

/// `CGImageSourceStatus` (CF_ENUM of `int32_t`).
public enum CGImageSourceStatus: Int32, Sendable {
    case statusUnexpectedEOF = -5
    case statusInvalidData = -4
    case statusUnknownType = -3
    case statusReadingHeader = -2
    case statusIncomplete = -1
    case statusComplete = 0
}

/// `CGImageSourceCreateWithData`: a source reading `data`; `nil` when it cannot be read.
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
    data.length == 0 ? nil : CGImageSource(data: Data(referencing: data), isFinal: true)
}

/// `CGImageSourceCreateIncremental`: a source with no bytes yet; `CGImageSourceUpdateData` gives them.
public func CGImageSourceCreateIncremental(_ options: CFDictionary?) -> CGImageSource {
    CGImageSource(data: Data(), isFinal: false)
}

/// `CGImageSourceUpdateData`: the bytes so far (all the earlier ones and more); `final` when they are all.
public func CGImageSourceUpdateData(_ isrc: CGImageSource, _ data: CFData, _ final: Bool) {
    isrc.data = Data(referencing: data)
    isrc.isFinal = final
}

/// `CGImageSourceGetStatus`: the source's overall status.
public func CGImageSourceGetStatus(_ isrc: CGImageSource) -> CGImageSourceStatus {
    isrc.data.isEmpty ? .statusReadingHeader : isrc.isFinal ? .statusComplete : .statusIncomplete
}

/// `CGImageSourceGetStatusAtIndex`: the status of the image at `index` (zero-based).
public func CGImageSourceGetStatusAtIndex(_ isrc: CGImageSource, _ index: Int) -> CGImageSourceStatus {
    CGImageSourceGetStatus(isrc)
}

/// `CGImageSourceCreateImageAtIndex`: the image at `index`, decoded as far as the bytes go (the stand-in makes none).
public func CGImageSourceCreateImageAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    nil
}

/// `CGImageSourceCreateThumbnailAtIndex`: a thumbnail of the image at `index` (the stand-in makes none).
public func CGImageSourceCreateThumbnailAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    nil
}

// MARK: Option keys

// Each is the string of its own name, as in ImageIO. Apple's are constants (`let`); these are computed,
// because Linux's NSString is not Sendable and a global `let` of it would not be concurrency-safe.

/// Creating a source: the type identifier the bytes probably have.
public var kCGImageSourceTypeIdentifierHint: CFString { "kCGImageSourceTypeIdentifierHint" }
/// Creating an image: whether to keep it decoded (a `Bool`).
public var kCGImageSourceShouldCache: CFString { "kCGImageSourceShouldCache" }
/// Creating an image: whether to decode now rather than at first draw (a `Bool`).
public var kCGImageSourceShouldCacheImmediately: CFString { "kCGImageSourceShouldCacheImmediately" }
/// Creating an image: whether to return floating-point pixels where the format has them (a `Bool`).
public var kCGImageSourceShouldAllowFloat: CFString { "kCGImageSourceShouldAllowFloat" }
/// A thumbnail: made from the image when the file has none (a `Bool`).
public var kCGImageSourceCreateThumbnailFromImageIfAbsent: CFString { "kCGImageSourceCreateThumbnailFromImageIfAbsent" }
/// A thumbnail: made from the image even when the file has one (a `Bool`).
public var kCGImageSourceCreateThumbnailFromImageAlways: CFString { "kCGImageSourceCreateThumbnailFromImageAlways" }
/// A thumbnail: its largest width and height, in pixels (a number).
public var kCGImageSourceThumbnailMaxPixelSize: CFString { "kCGImageSourceThumbnailMaxPixelSize" }
/// A thumbnail: rotated and scaled by the image's orientation and pixel aspect ratio (a `Bool`).
public var kCGImageSourceCreateThumbnailWithTransform: CFString { "kCGImageSourceCreateThumbnailWithTransform" }
/// Creating an image: scaled down by 2, 4 or 8 where the format allows (JPEG, HEIF, TIFF, PNG; an integer).
public var kCGImageSourceSubsampleFactor: CFString { "kCGImageSourceSubsampleFactor" }
