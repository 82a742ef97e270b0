/// A union of ranges of the scroll axis, kept sorted and disjoint: the plan of one frame.
///
/// Plans hold a handful of ranges (the viewport and a few policy regions), so every operation is
/// a linear pass.
@usableFromInline
struct RangeUnion: Sequence {
    @usableFromInline let ranges: [Range<Double>]

    /// Ranges already sorted, disjoint and not touching.
    @usableFromInline
    init(sorted ranges: [Range<Double>]) {
        self.ranges = ranges
    }

    /// The union of `ranges`, clipped to `0..<contentLength`; empty and non-finite ranges are dropped.
    @usableFromInline
    init(_ ranges: [Range<Double>], clippedTo contentLength: Double) {
        var clipped: [Range<Double>] = []
        clipped.reserveCapacity(ranges.count)
        for range in ranges {
            let lower = Swift.max(range.lowerBound, 0)
            let upper = Swift.min(range.upperBound, contentLength)
            guard lower.isFinite, upper.isFinite, lower < upper else { continue }
            clipped.append(lower..<upper)
        }
        clipped.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Double>] = []
        merged.reserveCapacity(clipped.count)
        for range in clipped {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<Swift.max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    @usableFromInline
    func makeIterator() -> IndexingIterator<[Range<Double>]> { ranges.makeIterator() }

    /// Whether `extent` overlaps some range by a positive length.
    @usableFromInline
    func meets(_ extent: Range<Double>) -> Bool {
        for range in ranges where range.lowerBound < extent.upperBound && extent.lowerBound < range.upperBound {
            return true
        }
        return false
    }

    /// The parts of this union outside `other`.
    @usableFromInline
    func subtracting(_ other: RangeUnion) -> [Range<Double>] {
        var result: [Range<Double>] = []
        var index = 0
        for range in ranges {
            var lower = range.lowerBound
            // Skip the ranges of `other` that end before this one starts.
            while index < other.ranges.count, other.ranges[index].upperBound <= lower { index += 1 }
            var probe = index
            while probe < other.ranges.count, other.ranges[probe].lowerBound < range.upperBound {
                let cut = other.ranges[probe]
                if cut.lowerBound > lower { result.append(lower..<cut.lowerBound) }
                lower = Swift.max(lower, cut.upperBound)
                if lower >= range.upperBound { break }
                probe += 1
            }
            if lower < range.upperBound { result.append(lower..<range.upperBound) }
        }
        return result
    }
}
