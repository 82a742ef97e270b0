// swift-tools-version: 6.1
import PackageDescription

// Micro-benchmarks of PrefetchKit's hot paths, each run against `SeedStyleFetcher`, a
// baseline built the way the `AsyncFetcher` of Apple's sample is built (OperationQueue, NSCache).
//
//     cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
let package = Package(
    name: "PrefetchKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PrefetchKit", path: ".."),
        .package(name: "PrefetchTools", path: "../Tools"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "Baseline",
            path: "Sources/Baseline",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "Workloads",
            dependencies: [
                "Baseline",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchCollectionView", package: "PrefetchTools"),
            ],
            path: "Sources/Workloads",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The workloads with no harness around them, for callgrind and perf.
        .executableTarget(
            name: "fetcher-profile",
            dependencies: [
                "Baseline", "Workloads",
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchCollectionView", package: "PrefetchTools"),
            ],
            path: "Sources/fetcher-profile",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "FetcherBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                "Baseline",
                "Workloads",
            ],
            path: "Benchmarks/FetcherBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The collection view's frame step and the policies' planning; same `swift package benchmark` run.
        .executableTarget(
            name: "ViewBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchCollectionView", package: "PrefetchTools"),
                "Workloads",
            ],
            path: "Benchmarks/ViewBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
