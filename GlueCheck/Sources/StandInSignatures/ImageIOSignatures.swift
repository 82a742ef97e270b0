// Pins the Swift type of each declaration the CoreGraphics and ImageIO stand-ins (and UIKit's
// UIImage) give the image recipes, exactly: `same(T.self, type(of: x))` compiles only if `x` has
// the type `T`, with no conversion (a function returning `CGImageSource` does not pass for one
// returning `CGImageSource?`). `GlueCheck/apple-check-recipes` compiles this file against Apple's
// iOS SDK as well, so a stand-in that drifts from Apple's declaration fails one of the two builds.
// Nothing calls it.
import ImageIO
import UIKit

/// Compiles only when both types are the same.
private func same<T>(_: T.Type, _: T.Type) {}

/// Every signature the recipes rely on, as Apple's SDK imports it.
func imageIOSignatures(image: CGImage, uiImage: UIImage) {
    // CoreFoundation, as ImageIO takes it: Foundation's values convert with `as`.
    same(CFData.self, type(of: Data() as CFData))
    same(CFDictionary.self, type(of: [kCGImageSourceShouldCache: false, kCGImageSourceThumbnailMaxPixelSize: CGFloat(1)] as CFDictionary))
    // Image sources.
    same((@Sendable (CFData, CFDictionary?) -> CGImageSource?).self, type(of: CGImageSourceCreateWithData))
    same((@Sendable (CFDictionary?) -> CGImageSource).self, type(of: CGImageSourceCreateIncremental))
    same((@Sendable (CGImageSource, CFData, Bool) -> Void).self, type(of: CGImageSourceUpdateData))
    same((@Sendable (CGImageSource) -> CGImageSourceStatus).self, type(of: CGImageSourceGetStatus))
    same((@Sendable (CGImageSource, Int) -> CGImageSourceStatus).self, type(of: CGImageSourceGetStatusAtIndex))
    same((@Sendable (CGImageSource, Int, CFDictionary?) -> CGImage?).self, type(of: CGImageSourceCreateImageAtIndex))
    same((@Sendable (CGImageSource, Int, CFDictionary?) -> CGImage?).self, type(of: CGImageSourceCreateThumbnailAtIndex))
    let _: [CGImageSourceStatus] = [.statusUnexpectedEOF, .statusInvalidData, .statusUnknownType, .statusReadingHeader,
                                    .statusIncomplete, .statusComplete]
    same(Int32.self, type(of: CGImageSourceStatus.statusIncomplete.rawValue))
    // Option keys.
    for key in [kCGImageSourceTypeIdentifierHint, kCGImageSourceShouldCache, kCGImageSourceShouldCacheImmediately,
                kCGImageSourceShouldAllowFloat, kCGImageSourceCreateThumbnailFromImageIfAbsent,
                kCGImageSourceCreateThumbnailFromImageAlways, kCGImageSourceThumbnailMaxPixelSize,
                kCGImageSourceCreateThumbnailWithTransform, kCGImageSourceSubsampleFactor] {
        same(CFString.self, type(of: key))
    }
    // CGImage and UIImage.
    same(Int.self, type(of: image.width))
    same(Int.self, type(of: image.height))
    same(UIImage.self, type(of: UIImage(cgImage: image)))
    same(UIImage.self, type(of: UIImage(cgImage: image, scale: 2, orientation: .up)))
    same(CGImage?.self, type(of: uiImage.cgImage))
    same(CGFloat.self, type(of: uiImage.scale))
    same(UIImage.Orientation.self, type(of: uiImage.imageOrientation))
    let _: [UIImage.Orientation] = [.up, .down, .left, .right, .upMirrored, .downMirrored, .leftMirrored, .rightMirrored]
    same(Int.self, type(of: UIImage.Orientation.up.rawValue))
    // Sendable where Apple's are: a loader makes images off the main actor and hands them on.
    func sendable<T: Sendable>(_: T.Type) {}
    sendable(CGImage.self)
    sendable(UIImage.self)
    sendable(CGImageSourceStatus.self)
}
