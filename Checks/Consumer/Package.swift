// swift-tools-version: 6.1
// An app's view of PrefetchKit: depends on the library by path and uses the products an app
// takes. `Checks/consumer-check` resolves it and fails if it pins anything but swift-collections
// and GRDB.swift.
import PackageDescription

let package = Package(
    name: "Consumer",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "PrefetchKit", path: "../..")],
    targets: [
        .target(
            name: "Consumer",
            dependencies: [
                .product(name: "PrefetchKit", package: "PrefetchKit"),
                .product(name: "PrefetchUIKit", package: "PrefetchKit"),
                .product(name: "PrefetchDiskCache", package: "PrefetchKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
