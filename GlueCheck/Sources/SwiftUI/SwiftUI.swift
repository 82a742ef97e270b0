// A stand-in for SwiftUI on Linux: exactly the API that PrefetchSwiftUI's bindings and the
// README's SwiftUI example touch, declared by hand from Apple's documentation with the isolation
// of the iOS 18 SDK (`View` and `ViewModifier` are `@MainActor @preconcurrency`) and SwiftUI's
// names, `ScrollPhase` and `ScrollGeometry` among them, so that a file importing SwiftUI and
// PrefetchKit together is checked for clashes. The iOS 18 scroll API carries its availability.
// The bodies do the least that lets the declarations stand: nothing here renders.
@_exported import Foundation   // as Apple's framework re-exports it

// MARK: Views and modifiers

/// `View`.
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

extension Never: View {
    public var body: Never { fatalError("Never has no body") }
}

/// A view with no body of its own (the stand-in's primitive views).
public protocol _PrimitiveView: View where Body == Never {}
extension _PrimitiveView {
    public var body: Never { fatalError("\(Self.self) is primitive") }
}

/// `ViewModifier`.
@MainActor @preconcurrency public protocol ViewModifier {
    associatedtype Body: View
    typealias Content = _ViewModifier_Content<Self>
    @ViewBuilder func body(content: Content) -> Body
}

/// `_ViewModifier_Content`.
public struct _ViewModifier_Content<Modifier: ViewModifier>: _PrimitiveView {}

/// `ModifiedContent`.
public struct ModifiedContent<Content, Modifier> {
    public var content: Content
    public var modifier: Modifier
}
extension ModifiedContent: View, _PrimitiveView where Content: View, Modifier: ViewModifier {}

/// `AnyView`, `EmptyView`, `Text`.
public struct AnyView: _PrimitiveView {
    nonisolated public init<V: View>(_ view: V) {}
}
public struct EmptyView: _PrimitiveView {
    nonisolated public init() {}
}
public struct Text: _PrimitiveView, Equatable, Sendable {
    let string: String
    public init<S: StringProtocol>(_ content: S) { string = String(content) }
}

/// `_ConditionalContent`, `TupleView`.
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: _PrimitiveView {
    nonisolated init() {}
}
public struct TupleView<T>: _PrimitiveView {
    nonisolated init() {}
}

/// `ViewBuilder`.
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> { TupleView() }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { content }
    public static func buildEither<T: View, F: View>(first: T) -> _ConditionalContent<T, F> { _ConditionalContent() }
    public static func buildEither<T: View, F: View>(second: F) -> _ConditionalContent<T, F> { _ConditionalContent() }
    public static func buildLimitedAvailability<Content: View>(_ content: Content) -> AnyView { AnyView(content) }
}

/// `State` (nothing renders here: the stand-in keeps the initial value).
@propertyWrapper public struct State<Value>: DynamicProperty {
    private let initial: Value
    public init(wrappedValue value: Value) { initial = value }
    public var wrappedValue: Value {
        get { initial }
        nonmutating set {}
    }
}
extension State: Sendable where Value: Sendable {}

/// `DynamicProperty`.
public protocol DynamicProperty {}

/// `ScrollView`, `LazyVStack`, `ForEach`.
public struct ScrollView<Content: View>: _PrimitiveView {
    public init(@ViewBuilder content: () -> Content) {}
}
public struct LazyVStack<Content: View>: _PrimitiveView {
    public init(spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
}
public struct ForEach<Data: RandomAccessCollection, ID: Hashable, Content> {
    public init(_ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content) {}
}
extension ForEach: View, _PrimitiveView where Content: View {}

extension View {
    /// `modifier(_:)`.
    public func modifier<T>(_ modifier: T) -> ModifiedContent<Self, T> { ModifiedContent(content: self, modifier: modifier) }
    /// `onAppear(perform:)`.
    public func onAppear(perform action: (() -> Void)? = nil) -> some View { self }
    /// `onChange(of:initial:_:)` (iOS 17).
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    public func onChange<V: Equatable>(of value: V, initial: Bool = false, _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void) -> some View { self }
    /// `task(id:priority:_:)` (iOS 15).
    public func task<T: Equatable>(id value: T, priority: TaskPriority = .userInitiated,
                                   @_inheritActorContext _ action: @escaping @Sendable () async -> Void) -> some View { self }
}

// MARK: The iOS 18 scroll API

/// CoreGraphics's `CGVector`, which swift-corelibs-foundation lacks.
public struct CGVector: Equatable, Sendable {
    public var dx: CGFloat, dy: CGFloat
    public init(dx: CGFloat, dy: CGFloat) { (self.dx, self.dy) = (dx, dy) }
}

/// `EdgeInsets`.
public struct EdgeInsets: Equatable, Sendable {
    public var top: CGFloat, leading: CGFloat, bottom: CGFloat, trailing: CGFloat
    public init(top: CGFloat, leading: CGFloat, bottom: CGFloat, trailing: CGFloat) {
        (self.top, self.leading, self.bottom, self.trailing) = (top, leading, bottom, trailing)
    }
}

/// `ScrollGeometry`.
@available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public struct ScrollGeometry: Equatable, Sendable {
    public var contentOffset: CGPoint
    public var contentSize: CGSize
    public var contentInsets: EdgeInsets
    public var containerSize: CGSize
    public init(contentOffset: CGPoint, contentSize: CGSize, contentInsets: EdgeInsets, containerSize: CGSize) {
        (self.contentOffset, self.contentSize, self.contentInsets, self.containerSize) = (contentOffset, contentSize, contentInsets, containerSize)
    }
}

/// `ScrollPhase`.
@available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
@frozen public enum ScrollPhase: Hashable, Sendable {
    case idle, tracking, interacting, decelerating, animating
    public var isScrolling: Bool { self != .idle }
}

/// `ScrollPhaseChangeContext`.
@available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public struct ScrollPhaseChangeContext {
    public var geometry: ScrollGeometry
    public var velocity: CGVector?
}

@available(iOS 18.0, macOS 15.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension View {
    /// `onScrollGeometryChange(for:of:action:)`.
    public func onScrollGeometryChange<T: Equatable>(for type: T.Type, of transform: @escaping (ScrollGeometry) -> T,
                                                     action: @escaping (_ oldValue: T, _ newValue: T) -> Void) -> some View { self }
    /// `onScrollPhaseChange(_:)`.
    public func onScrollPhaseChange(_ action: @escaping (_ oldPhase: ScrollPhase, _ newPhase: ScrollPhase) -> Void) -> some View { self }
    /// `onScrollPhaseChange(_:)` with its context.
    public func onScrollPhaseChange(
        _ action: @escaping (_ oldPhase: ScrollPhase, _ newPhase: ScrollPhase, _ context: ScrollPhaseChangeContext) -> Void
    ) -> some View { self }
}
