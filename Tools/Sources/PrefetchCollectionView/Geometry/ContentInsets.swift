import Foundation

/// Insets from each edge of a rectangle, like UIKit's `UIEdgeInsets`.
public struct ContentInsets: Hashable, Sendable {
    /// The inset from the top edge.
    public var top: Double
    /// The inset from the left edge.
    public var left: Double
    /// The inset from the bottom edge.
    public var bottom: Double
    /// The inset from the right edge.
    public var right: Double

    /// Creates insets.
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No insets.
    public static let zero = ContentInsets()

    /// Whether every inset is a finite number.
    var isFinite: Bool { top.isFinite && left.isFinite && bottom.isFinite && right.isFinite }

    /// The sum of the left and right insets.
    var horizontal: Double { left + right }
}

extension CGRect {
    /// Whether the two rectangles share an area of positive size (touching edges do not count).
    ///
    /// This is the test the views use for "visible": an item whose frame only touches the
    /// viewport's edge is not visible. Rectangles of zero width or height never overlap anything.
    package func overlapsWithPositiveArea(_ other: CGRect) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
            && width > 0 && height > 0 && other.width > 0 && other.height > 0
    }
}
