// swift-tools-version: 6.1
// libFuzzer targets for PrefetchKit's parsers, in a package of their own so a plain `swift build`
// or `swift test` of the main package never needs `-sanitize=fuzzer`. Build and run with `./run`.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "PrefetchFuzz",
    platforms: [.macOS(.v15)],
    // The library (root package) and the tools package beside it, which holds PrefetchServer.
    dependencies: [
        .package(name: "PrefetchKit", path: ".."),
        .package(name: "PrefetchTools", path: "../Tools"),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        // The byte reader the Swift targets share.
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "FuzzTraceFile",
            dependencies: ["FuzzDriver", .product(name: "PrefetchSimulation", package: "PrefetchTools")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzServerRequest",
            dependencies: ["FuzzDriver", .product(name: "PrefetchServer", package: "PrefetchTools")],
            swiftSettings: strict
        ),
        // The lab's decoder of prefetch-server's feed pages (PrefetchDemoKit's Remote/FeedItem.swift,
        // linked in: the lab keeps it `package`) over the product's `FeedPage` rules.
        .executableTarget(
            name: "FuzzFeedPage",
            dependencies: ["FuzzDriver", .product(name: "PrefetchFeed", package: "PrefetchKit")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzScrollAdapter",
            dependencies: [
                "FuzzDriver", "FuzzSupport", .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchUIKit", package: "PrefetchKit"), .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzProgressiveJPEG",
            dependencies: ["FuzzDriver", .product(name: "PrefetchHTTP", package: "PrefetchKit")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "FuzzFetcherEstimates",
            dependencies: ["FuzzDriver", "FuzzSupport", .product(name: "PrefetchKit", package: "PrefetchKit")],
            swiftSettings: strict
        ),
    ]
)
