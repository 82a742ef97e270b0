// swift-tools-version: 6.1
import PackageDescription

// The tools around the PrefetchKit library: the demo, the bench, the local data server, and the
// tests that run them or need their dependencies (Hummingbird, NIO, swift-log, ArgumentParser).
// It depends on the library in the folder above by path, so an app that depends on the library
// resolves none of this. Run from the repository root:
//
//     swift run --package-path Tools prefetch-demo
//     swift test --package-path Tools
//
// Platforms: higher floors than the library's (macOS 13 / iOS 16): Hummingbird 2's API needs macOS 14,
// and the demo and the server were written for macOS 15; they run on Linux and macOS only.

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "PrefetchTools",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "prefetch-demo", targets: ["prefetch-demo"]),
        .executable(name: "prefetch-bench", targets: ["prefetch-bench"]),
        .executable(name: "prefetch-server", targets: ["prefetch-server"]),
        .library(name: "PrefetchServer", targets: ["PrefetchServer"]),
        // The lab's instruments, products so that Benchmarks/ and Fuzz/ can use them.
        .library(name: "PrefetchCollectionView", targets: ["PrefetchCollectionView"]),
        .library(name: "PrefetchSimulation", targets: ["PrefetchSimulation"]),
    ],
    dependencies: [
        .package(name: "PrefetchKit", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The library's `Locked` and `SplitMix64` for this package: the same two files, linked
        // (symlinks into ../Sources/PrefetchSupport), because `package` access does not cross
        // packages and the library keeps them out of its public API; and `LatencyOptions`, the
        // latency flags of the bench, the demo and the server.
        .target(
            name: "PrefetchToolSupport",
            dependencies: [
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // The headless collection and table views: the Linux stand-ins of UIKit's, with its contracts.
        .target(
            name: "PrefetchCollectionView",
            dependencies: [
                "PrefetchToolSupport",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchUIKit", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        // The app loop on virtual time, the simulated network, the meter, traces, the references,
        // the peers and the bench's reports.
        .target(
            name: "PrefetchSimulation",
            dependencies: [
                "PrefetchCollectionView", "PrefetchToolSupport",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchSwiftUI", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-bench",
            dependencies: [
                "PrefetchToolSupport",
                "PrefetchSimulation",
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchDemoKit",
            dependencies: [
                "PrefetchToolSupport",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                "PrefetchCollectionView",
                "PrefetchSimulation",
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                // Real I/O for --source/--serve: URLSession and SQLite, never NIO or Hummingbird
                // (the server runs as a child process, `prefetch-server`).
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
                .product(name: "PrefetchFeed", package: "PrefetchKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-demo",
            dependencies: [
                "PrefetchDemoKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PrefetchServer",
            dependencies: [
                "PrefetchToolSupport",
                .product(name: "PrefetchTesting", package: "PrefetchKit"),   // LatencyModel
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),   // HTTP1Channel, for ConnectionGuard
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),   // the shutdown deadline
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),   // ProgressiveJPEG, for X-Preview-Length
            ],
            // The progressive JPEG fixtures of /photos (Tools/Fixtures/make-progressive-jpegs.py writes them).
            resources: [.copy("Photos")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "prefetch-server",
            dependencies: [
                "PrefetchServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // MARK: Test support: helpers and the child processes the tests run.
        .target(
            name: "IOTestSupport",
            dependencies: ["PrefetchToolSupport", .product(name: "PrefetchKit", package: "PrefetchKit")],
            path: "Tests/Support/IOTestSupport",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "disk-cache-crasher",
            dependencies: [
                "IOTestSupport", "PrefetchToolSupport",
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
            ],
            path: "Tests/Support/disk-cache-crasher",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "soak-client",
            dependencies: [
                "IOTestSupport", "PrefetchToolSupport", "PrefetchDemoKit",
                "PrefetchCollectionView",
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
                .product(name: "PrefetchFeed", package: "PrefetchKit"),
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                "PrefetchSimulation",
            ],
            path: "Tests/Support/soak-client",
            swiftSettings: strict
        ),

        // The Swift examples of the tools' documentation, written into Generated/ by
        // Checks/doc-examples beside a Context.swift; .ci/run builds them.
        .target(
            name: "ToolsDocExamples",
            dependencies: [
                "PrefetchServer", "PrefetchDemoKit", "PrefetchCollectionView", "PrefetchSimulation", "PrefetchToolSupport",
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
            ],
            path: "Tests/Support/DocExamples",
            swiftSettings: strict
        ),

        // MARK: Tests. Executables they run are dependencies, so `swift test` builds them first and
        // they sit next to the test bundle (IOTestSupport's `BuiltProducts`).
        .testTarget(
            name: "PrefetchDemoTests",
            dependencies: [
                "PrefetchDemoKit", "prefetch-demo", "prefetch-server", "IOTestSupport", "PrefetchToolSupport",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                "PrefetchCollectionView",
                "PrefetchSimulation",
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchCollectionViewTests",
            dependencies: [
                "PrefetchCollectionView",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSimulationTests",
            dependencies: [
                "PrefetchSimulation", "PrefetchCollectionView", "PrefetchToolSupport",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchBenchTests",
            dependencies: ["IOTestSupport", "prefetch-bench"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchSoakTests",
            dependencies: ["IOTestSupport", "soak-client", "prefetch-server"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchHTTPLoopbackTests",
            dependencies: [
                "PrefetchServer", "IOTestSupport", "PrefetchToolSupport",
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchDiskCacheCrashTests",
            dependencies: [
                "IOTestSupport", "disk-cache-crasher",
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchFeedTests",
            dependencies: [
                "PrefetchServer", "PrefetchDemoKit", "IOTestSupport", "PrefetchToolSupport",
                .product(name: "PrefetchFeed", package: "PrefetchKit"),
                .product(name: "PrefetchHTTP", package: "PrefetchKit"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "PrefetchServerTests",
            dependencies: [
                "PrefetchServer", "IOTestSupport", "prefetch-server",
                .product(name: "PrefetchTesting", package: "PrefetchKit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
    ]
)
