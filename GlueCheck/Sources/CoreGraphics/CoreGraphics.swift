// A stand-in for CoreGraphics on Linux: `CGImage`, which ImageIO makes and UIImage wraps, and the
// CoreFoundation types ImageIO's functions take, which Apple's CoreGraphics re-exports. Declared
// from the iOS SDK's headers (CoreGraphics/CGImage.h, CoreFoundation) as Swift imports them.
// `CGFloat`, `CGSize`, `CGPoint` and `CGRect` come from Linux's Foundation, as on Apple platforms.
@_exported import Foundation

// MARK: CoreFoundation, toll-free bridged

// On Apple platforms a CoreFoundation type is toll-free bridged to a Foundation class, and Swift
// converts to it with `as`: `data as CFData`, `[kCGImageSourceShouldCache: false] as CFDictionary`.
// Linux's Foundation has no CoreFoundation types for an app, but it converts to its Foundation
// classes with `as` just the same; naming those classes here lets the same lines compile.

/// `CFData` (toll-free bridged to `NSData`; `Data` converts to it with `as`).
public typealias CFData = NSData
/// `CFDictionary` (toll-free bridged to `NSDictionary`; a dictionary literal converts to it with `as`).
public typealias CFDictionary = NSDictionary
/// `CFString` (toll-free bridged to `NSString`): the type of ImageIO's option keys.
public typealias CFString = NSString

// MARK: CoreGraphics

/// `CGImage` (CGImageRef, Sendable in Swift): a bitmap of `width` × `height` pixels.
public final class CGImage: Sendable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int

    /// Creates an image of `width` × `height` pixels: the stand-in's own initialiser (Apple's images
    /// come from a decoder, a context or a data provider), named so that no example can mistake it.
    public init(standInWidth width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
