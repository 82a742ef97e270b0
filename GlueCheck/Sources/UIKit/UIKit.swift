// A stand-in for UIKit on Linux: exactly the API that PrefetchUIKit's bindings and the UIKit
// examples of the README and the DocC articles touch, declared by hand from Apple's documentation (and the iOS SDK's Swift
// interface) with its isolation and sendability: UIKit's classes are `@MainActor`, the
// diffable snapshot is Sendable, key-value observing hands its change handler a `@Sendable`
// closure. The bodies do the least that lets the declarations stand; a few (key-value observing,
// the scroll view's flags, the view tree with autoresizing, a view controller's view loading, a
// window's root view controller, the diffable data source's cells) behave, so that
// `GlueCheckTests` can drive the real bindings and the README's view controller.
//
// Not here, because Linux has no Objective-C: `@objc`, selectors and optional protocol
// requirements. The bindings keep those lines under `#if canImport(ObjectiveC)`; only the
// typecheck against Apple's SDK covers them.
@_exported import CoreGraphics // as Apple's framework re-exports it (and, through it, Foundation)

// MARK: Foundation's key-value observing (Apple's Foundation; swift-corelibs-foundation has none)

/// `NSKeyValueObservingOptions`.
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let new = NSKeyValueObservingOptions(rawValue: 1)
    public static let old = NSKeyValueObservingOptions(rawValue: 2)
    public static let initial = NSKeyValueObservingOptions(rawValue: 4)
}

/// `NSKeyValueObservedChange<Value>`.
public struct NSKeyValueObservedChange<Value> {
    public let newValue: Value?
    public let oldValue: Value?
}

/// `NSKeyValueObservation`: the observation ends when it is invalidated or released.
public final class NSKeyValueObservation: NSObject {
    fileprivate var remove: (() -> Void)?
    public func invalidate() {
        remove?()
        remove = nil
    }
    deinit { remove?() }
}

/// Foundation's `_KeyValueCodingAndObserving`, which gives every `NSObject` `observe(_:options:changeHandler:)`.
public protocol _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving where Self: UIView {
    /// Calls `changeHandler` after each change of the property at `keyPath`.
    @preconcurrency
    public func observe<Value>(_ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [],
                               changeHandler: @escaping @Sendable (Self, NSKeyValueObservedChange<Value>) -> Void) -> NSKeyValueObservation {
        let observation = NSKeyValueObservation()
        let id = ObjectIdentifier(observation)
        // Observers are matched by property name, so \UICollectionView.contentOffset hears a change
        // reported as \UIScrollView.contentOffset.
        let name = propertyName(keyPath)
        MainActor.assumeIsolated {
            observers[id] = (name, { [unowned self] in changeHandler(self, NSKeyValueObservedChange(newValue: nil, oldValue: nil)) })
        }
        observation.remove = { [weak self] in MainActor.assumeIsolated { _ = self?.observers.removeValue(forKey: id) } }
        return observation
    }
}

private func propertyName(_ keyPath: AnyKeyPath) -> String {
    String(String(describing: keyPath).split(separator: ".").last ?? "")
}

// MARK: Geometry and views

/// `UIEdgeInsets`.
public struct UIEdgeInsets: Sendable, Equatable {
    public var top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat
    public init(top: CGFloat, left: CGFloat, bottom: CGFloat, right: CGFloat) { (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right) }
    public static let zero = UIEdgeInsets(top: 0, left: 0, bottom: 0, right: 0)
}

/// `UIResponder`.
@MainActor open class UIResponder: NSObject {}

/// `UIView`: its designated initialisers are `init(frame:)` and `init?(coder:)`; `init()`, which
/// Objective-C gives every class, is `init(frame: .zero)`. The stand-in keeps the view tree
/// (`addSubview(_:)`, `subviews`, `superview`, `window` from the tree) and resizes subviews by
/// their `autoresizingMask` when a view's size changes, so a test can check a layout.
@MainActor open class UIView: UIResponder, _KeyValueCodingAndObserving {
    /// `UIView.AutoresizingMask`.
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let flexibleLeftMargin = AutoresizingMask(rawValue: 1 << 0)
        public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
        public static let flexibleRightMargin = AutoresizingMask(rawValue: 1 << 2)
        public static let flexibleTopMargin = AutoresizingMask(rawValue: 1 << 3)
        public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
        public static let flexibleBottomMargin = AutoresizingMask(rawValue: 1 << 5)
    }

    /// `UIView.ContentMode`.
    public enum ContentMode: Int, Sendable {
        case scaleToFill, scaleAspectFit, scaleAspectFill, redraw, center, top, bottom, left, right
        case topLeft, topRight, bottomLeft, bottomRight
    }

    fileprivate var observers: [ObjectIdentifier: (String, () -> Void)] = [:]
    /// Calls the observers of `keyPath` (what Objective-C's key-value observing does on a change).
    public func didChangeValue(for keyPath: AnyKeyPath) {
        let name = propertyName(keyPath)
        for (observed, handler) in observers.values where observed == name { handler() }
    }

    /// A change of size resizes the subviews by their `autoresizingMask`.
    open var bounds: CGRect = .zero {
        didSet {
            didChangeValue(for: \UIView.bounds)
            if bounds.size != oldValue.size { resizeSubviews(from: oldValue.size) }
        }
    }
    /// The frame in the superview: its size is the bounds' (the stand-in has no transform).
    open var frame: CGRect {
        get { CGRect(origin: frameOrigin, size: bounds.size) }
        set {
            frameOrigin = newValue.origin
            bounds.size = newValue.size
        }
    }
    private var frameOrigin: CGPoint = .zero
    open var autoresizingMask: AutoresizingMask = []
    open var contentMode: ContentMode = .scaleToFill
    open var clipsToBounds = false
    open private(set) weak var superview: UIView?
    open private(set) var subviews: [UIView] = []
    /// The window the view is in: read from the view tree (a test may also set it on a lone view).
    open var window: UIWindow? {
        get { placedWindow ?? superview.flatMap { $0 as? UIWindow ?? $0.window } }
        set { placedWindow = newValue }
    }
    private var placedWindow: UIWindow?

    public init(frame: CGRect) {
        super.init()
        self.frame = frame
    }
    public required init?(coder: NSCoder) { super.init() }
    public required convenience override init() { self.init(frame: .zero) }

    open func addSubview(_ view: UIView) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    open func removeFromSuperview() {
        superview?.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// Autoresizing: each flexible margin and length along an axis takes a share of the change in
    /// proportion to its length (equal shares when they are all empty), as UIKit does.
    private func resizeSubviews(from old: CGSize) {
        for view in subviews where !view.autoresizingMask.isEmpty {
            let mask = view.autoresizingMask, frame = view.frame
            let x = Self.share(bounds.width - old.width, leading: (frame.minX, mask.contains(.flexibleLeftMargin)),
                               length: (frame.width, mask.contains(.flexibleWidth)),
                               trailing: (old.width - frame.maxX, mask.contains(.flexibleRightMargin)))
            let y = Self.share(bounds.height - old.height, leading: (frame.minY, mask.contains(.flexibleTopMargin)),
                               length: (frame.height, mask.contains(.flexibleHeight)),
                               trailing: (old.height - frame.maxY, mask.contains(.flexibleBottomMargin)))
            view.frame = CGRect(x: x.leading, y: y.leading, width: max(x.length, 0), height: max(y.length, 0))
        }
    }

    private static func share(_ change: CGFloat, leading: (CGFloat, Bool), length: (CGFloat, Bool),
                              trailing: (CGFloat, Bool)) -> (leading: CGFloat, length: CGFloat) {
        let parts = [leading, length, trailing].filter(\.1).map { max($0.0, 0) }
        guard !parts.isEmpty else { return (leading.0, length.0) }
        let total = parts.reduce(0, +)
        func grown(_ part: (CGFloat, Bool)) -> CGFloat {
            guard part.1 else { return part.0 }
            return part.0 + (total > 0 ? change * max(part.0, 0) / total : change / CGFloat(parts.count))
        }
        return (grown(leading), grown(length))
    }
}

/// `UIWindow`: a root view controller's view fills it.
@MainActor open class UIWindow: UIView {
    open var rootViewController: UIViewController? {
        didSet {
            if let oldValue, oldValue.isViewLoaded { oldValue.view.removeFromSuperview() }
            guard let view = rootViewController?.view else { return }   // loads the view (viewDidLoad)
            addSubview(view)
            view.frame = bounds
        }
    }
}

/// `UIImage` (NS_SWIFT_SENDABLE): not bound to the main actor, so a loader may make one.
open class UIImage: NSObject, @unchecked Sendable {
    /// `UIImage.Orientation` (UIImageOrientation): how to turn the bitmap to draw it upright.
    public enum Orientation: Int, Sendable {
        case up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored
    }

    private let bitmap: CGImage?
    private let pixelsPerPoint: CGFloat
    private let turn: Orientation

    /// The bitmap, for an image made from one.
    open var cgImage: CGImage? { bitmap }
    /// Pixels per point.
    open var scale: CGFloat { pixelsPerPoint }
    /// How the bitmap is turned.
    open var imageOrientation: Orientation { turn }

    /// An empty image.
    public override init() {
        (bitmap, pixelsPerPoint, turn) = (nil, 1, .up)
    }

    /// An image of `cgImage` at 1 pixel a point, upright.
    public convenience init(cgImage: CGImage) {
        self.init(cgImage: cgImage, scale: 1, orientation: .up)
    }

    /// An image of `cgImage` at `scale` pixels a point, turned by `orientation`.
    public init(cgImage: CGImage, scale: CGFloat, orientation: Orientation) {
        (bitmap, pixelsPerPoint, turn) = (cgImage, scale, orientation)
    }
}

/// `UIImageView`.
@MainActor open class UIImageView: UIView {
    open var image: UIImage?
}

/// `UIGestureRecognizer` and `UIPanGestureRecognizer` (their target-action API is Objective-C's).
@MainActor open class UIGestureRecognizer: NSObject {}
@MainActor open class UIPanGestureRecognizer: UIGestureRecognizer {}

/// `UIScrollView`.
@MainActor open class UIScrollView: UIView {
    /// `UIScrollView.DecelerationRate`.
    public struct DecelerationRate: RawRepresentable, Hashable, Sendable {
        public let rawValue: CGFloat
        public init(rawValue: CGFloat) { self.rawValue = rawValue }
        public static let normal = DecelerationRate(rawValue: 0.998)
        public static let fast = DecelerationRate(rawValue: 0.99)
    }

    /// The offset; setting it moves `bounds.origin` too, and both are observed.
    open var contentOffset: CGPoint = .zero {
        didSet {
            didChangeValue(for: \UIScrollView.contentOffset)
            bounds.origin = contentOffset
        }
    }
    open var contentSize: CGSize = .zero { didSet { didChangeValue(for: \UIScrollView.contentSize) } }
    open var adjustedContentInset: UIEdgeInsets = .zero
    open var decelerationRate: DecelerationRate = .normal
    /// Read-only in UIKit; a test sets the stand-in's state through `setTracking(dragging:decelerating:)`.
    open private(set) var isDragging = false
    open private(set) var isDecelerating = false
    public let panGestureRecognizer = UIPanGestureRecognizer()
    /// The offsets `setContentOffset(_:animated: true)` was asked to reach, in order.
    public private(set) var animatedOffsets: [CGPoint] = []

    open func setContentOffset(_ contentOffset: CGPoint, animated: Bool) {
        if animated { animatedOffsets.append(contentOffset) } else { self.contentOffset = contentOffset }
    }

    /// Stand-in only: what UIKit's own gesture handling sets.
    public func setTracking(dragging: Bool, decelerating: Bool) { (isDragging, isDecelerating) = (dragging, decelerating) }
}

// MARK: Collection views

/// `UICollectionReusableView` and `UICollectionViewCell`.
@MainActor open class UICollectionReusableView: UIView {
    open func prepareForReuse() {}
}
@MainActor open class UICollectionViewCell: UICollectionReusableView {
    /// The view a cell's content goes in: it fills the cell, whatever the cell's size.
    open var contentView: UIView { content }
    private let content: UIView

    public override init(frame: CGRect) {
        content = UIView(frame: CGRect(origin: .zero, size: frame.size))
        super.init(frame: frame)
        content.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        addSubview(content)
    }

    public required init?(coder: NSCoder) {
        content = UIView()
        super.init(coder: coder)
        content.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        addSubview(content)
    }
}

/// `UICollectionView.ElementCategory`.
public enum UICollectionElementCategory: UInt, Sendable { case cell, supplementaryView, decorationView }

/// `UICollectionViewLayoutAttributes`.
@MainActor open class UICollectionViewLayoutAttributes: NSObject {
    open var frame: CGRect
    open var indexPath: IndexPath
    open var representedElementCategory: UICollectionElementCategory
    public init(indexPath: IndexPath, frame: CGRect, category: UICollectionElementCategory = .cell) {
        (self.indexPath, self.frame, self.representedElementCategory) = (indexPath, frame, category)
    }
}

/// `UICollectionViewLayout`: the stand-in lays out one column of rows `rowHeight` high.
@MainActor open class UICollectionViewLayout: NSObject {
    public var rowHeight: CGFloat = 100
    public var rowCount = 0
    open func layoutAttributesForElements(in rect: CGRect) -> [UICollectionViewLayoutAttributes]? {
        guard rowCount > 0, rect.height > 0 else { return [] }
        let first = max(0, Int((rect.minY / rowHeight).rounded(.down))), last = min(rowCount - 1, Int((rect.maxY / rowHeight).rounded(.up)))
        return first > last ? [] : (first...last).compactMap(attributes(row:))
    }
    func attributes(row: Int) -> UICollectionViewLayoutAttributes? {
        (0..<rowCount).contains(row)
            ? UICollectionViewLayoutAttributes(indexPath: IndexPath(indexes: [0, row]), frame: CGRect(x: 0, y: CGFloat(row) * rowHeight, width: 320, height: rowHeight))
            : nil
    }
}

/// `UICollectionViewDelegate`, `UICollectionViewDataSource`, `UICollectionViewDataSourcePrefetching`
/// (its `cancelPrefetchingForItemsAt` is an optional requirement, which needs Objective-C).
@MainActor public protocol UIScrollViewDelegate: NSObjectProtocol {}
@MainActor public protocol UICollectionViewDelegate: UIScrollViewDelegate {}
@MainActor public protocol UICollectionViewDataSource: NSObjectProtocol {
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell
}
@MainActor public protocol UICollectionViewDataSourcePrefetching: NSObjectProtocol {
    func collectionView(_ collectionView: UICollectionView, prefetchItemsAt indexPaths: [IndexPath])
}

/// `UICollectionView`.
@MainActor open class UICollectionView: UIScrollView {
    /// `UICollectionView.CellRegistration`.
    public struct CellRegistration<Cell: UICollectionViewCell, Item> {
        public typealias Handler = (_ cell: Cell, _ indexPath: IndexPath, _ itemIdentifier: Item) -> Void
        let handler: Handler
        public init(handler: @escaping Handler) { self.handler = handler }
    }

    open var collectionViewLayout: UICollectionViewLayout
    open weak var delegate: (any UICollectionViewDelegate)?
    open weak var dataSource: (any UICollectionViewDataSource)?
    open weak var prefetchDataSource: (any UICollectionViewDataSourcePrefetching)?

    public init(frame: CGRect, collectionViewLayout layout: UICollectionViewLayout) {
        collectionViewLayout = layout
        super.init(frame: frame)
    }
    public required init?(coder: NSCoder) {
        collectionViewLayout = UICollectionViewLayout()
        super.init(coder: coder)
    }
    public required convenience init() {
        self.init(frame: .zero, collectionViewLayout: UICollectionViewLayout())
    }

    open func layoutAttributesForItem(at indexPath: IndexPath) -> UICollectionViewLayoutAttributes? {
        indexPath.count == 2 ? collectionViewLayout.attributes(row: indexPath[1]) : nil
    }
    /// One section in the stand-in.
    open var numberOfSections: Int { 1 }
    open func numberOfItems(inSection section: Int) -> Int { dataSource?.collectionView(self, numberOfItemsInSection: section) ?? 0 }
    /// The items whose frames meet the bounds.
    open var indexPathsForVisibleItems: [IndexPath] {
        (collectionViewLayout.layoutAttributesForElements(in: bounds) ?? []).map(\.indexPath)
    }

    public func dequeueConfiguredReusableCell<Cell, Item>(using registration: CellRegistration<Cell, Item>, for indexPath: IndexPath,
                                                          item: Item?) -> Cell where Cell: UICollectionViewCell {
        let cell = Cell()
        // Sized by the layout, as UIKit does before it hands the cell out.
        cell.frame = layoutAttributesForItem(at: indexPath)?.frame ?? .zero
        if let item { registration.handler(cell, indexPath, item) }
        return cell
    }
}

/// `NSDiffableDataSourceSnapshot`.
public struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>: @unchecked Sendable {
    var items: [ItemIdentifierType] = []
    public init() {}
    public mutating func appendSections(_ identifiers: [SectionIdentifierType]) {}
    public mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType? = nil) {
        items += identifiers
    }
}

/// `UICollectionViewDiffableDataSource` (one section in the stand-in).
@MainActor open class UICollectionViewDiffableDataSource<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>:
    NSObject, UICollectionViewDataSource {
    public typealias CellProvider = (_ collectionView: UICollectionView, _ indexPath: IndexPath, _ itemIdentifier: ItemIdentifierType) -> UICollectionViewCell?
    private weak var collectionView: UICollectionView?
    private let cellProvider: CellProvider
    private var items: [ItemIdentifierType] = []

    /// Becomes the collection view's data source, as UIKit's does.
    public init(collectionView: UICollectionView, cellProvider: @escaping CellProvider) {
        self.collectionView = collectionView
        self.cellProvider = cellProvider
        super.init()
        collectionView.dataSource = self
    }

    open func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int {
        section == 0 ? items.count : 0
    }

    /// The cell provider's cell for the item at `indexPath` (UIKit raises an exception for none).
    open func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell {
        guard let item = itemIdentifier(for: indexPath), let cell = cellProvider(collectionView, indexPath, item) else {
            fatalError("UICollectionViewDiffableDataSource: no cell for \(indexPath)")
        }
        return cell
    }

    nonisolated open func apply(_ snapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>,
                                animatingDifferences: Bool = true, completion: (() -> Void)? = nil) {
        MainActor.assumeIsolated {
            items = snapshot.items
            collectionView?.collectionViewLayout.rowCount = items.count
            collectionView?.contentSize = CGSize(width: 320, height: CGFloat(items.count) * (collectionView?.collectionViewLayout.rowHeight ?? 0))
        }
    }

    open func itemIdentifier(for indexPath: IndexPath) -> ItemIdentifierType? {
        indexPath.count == 2 && items.indices.contains(indexPath[1]) ? items[indexPath[1]] : nil
    }

    open func indexPath(for itemIdentifier: ItemIdentifierType) -> IndexPath? {
        items.firstIndex(of: itemIdentifier).map { IndexPath(indexes: [0, $0]) }
    }
}

// MARK: Table views

/// `UITableViewDataSourcePrefetching` (its cancel call is an optional requirement).
@MainActor public protocol UITableViewDataSourcePrefetching: NSObjectProtocol {
    func tableView(_ tableView: UITableView, prefetchRowsAt indexPaths: [IndexPath])
}
@MainActor public protocol UITableViewDataSource: NSObjectProtocol {}

/// `UITableViewCell`.
@MainActor open class UITableViewCell: UIView {}

/// `UITableView`: rows `rowHeight` high in the stand-in.
@MainActor open class UITableView: UIScrollView {
    public var rowHeight: CGFloat = 44
    public var rowCount = 0
    open weak var prefetchDataSource: (any UITableViewDataSourcePrefetching)?

    open func indexPathsForRows(in rect: CGRect) -> [IndexPath]? {
        guard rowCount > 0 else { return [] }
        let first = max(0, Int((rect.minY / rowHeight).rounded(.down))), last = min(rowCount - 1, Int((rect.maxY / rowHeight).rounded(.up)))
        return first > last ? [] : (first...last).map { IndexPath(indexes: [0, $0]) }
    }

    /// `CGRect.zero` for an index path with no row, as UIKit answers.
    open func rectForRow(at indexPath: IndexPath) -> CGRect {
        indexPath.count == 2 && (0..<rowCount).contains(indexPath[1])
            ? CGRect(x: 0, y: CGFloat(indexPath[1]) * rowHeight, width: 320, height: rowHeight) : .zero
    }
}

/// `UITableViewDiffableDataSource`.
@MainActor open class UITableViewDiffableDataSource<SectionIdentifierType: Hashable & Sendable, ItemIdentifierType: Hashable & Sendable>:
    NSObject, UITableViewDataSource {
    public typealias CellProvider = (_ tableView: UITableView, _ indexPath: IndexPath, _ itemIdentifier: ItemIdentifierType) -> UITableViewCell?
    public init(tableView: UITableView, cellProvider: @escaping CellProvider) {}
    open func itemIdentifier(for indexPath: IndexPath) -> ItemIdentifierType? { nil }
    open func indexPath(for itemIdentifier: ItemIdentifierType) -> IndexPath? { nil }
}

// MARK: View controllers and accessibility

/// `UIViewController`: its view is loaded (`loadView()`, then `viewDidLoad()`) the first time
/// `view` is read, as UIKit does.
@MainActor open class UIViewController: UIResponder {
    private var loadedView: UIView?
    open var view: UIView! {
        get {
            loadViewIfNeeded()
            return loadedView
        }
        set { loadedView = newValue }
    }
    open var isViewLoaded: Bool { loadedView != nil }
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
    public required init?(coder: NSCoder) { super.init() }
    /// A plain view that follows its superview's size, to be sized by whoever shows the controller.
    open func loadView() {
        let view = UIView()
        view.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        loadedView = view
    }
    open func loadViewIfNeeded() {
        guard loadedView == nil else { return }
        loadView()
        viewDidLoad()
    }
    open func viewDidLoad() {}
}

/// `UIAccessibility`: `post(notification:argument:)` records what it was given in the stand-in.
@MainActor public enum UIAccessibility {
    /// `UIAccessibility.Notification`.
    public struct Notification: Hashable, Sendable {
        let name: String
        public static let pageScrolled = Notification(name: "pageScrolled")
    }

    /// Everything posted, in order (stand-in only).
    public private(set) static var posted: [(Notification, Any?)] = []

    public static func post(notification: Notification, argument: Any?) { posted.append((notification, argument)) }
}

/// `UIApplication`: the name of the memory warning's notification, which the bindings observe.
@MainActor open class UIApplication: UIResponder {
    /// `UIApplication.didReceiveMemoryWarningNotification`, posted on the main thread.
    public nonisolated static let didReceiveMemoryWarningNotification = Notification.Name("UIApplicationDidReceiveMemoryWarningNotification")
}
