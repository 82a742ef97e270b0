import Foundation

/// Finds executables that `swift build` / `swift test` put next to the running test bundle.
public enum BuiltProducts {
    /// The directory that holds the running executable (the test bundle's build directory).
    public static var directory: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if FileManager.default.fileExists(atPath: exe.path), exe.path != "/proc/self/exe" {
            return findProductsDirectory(from: exe)
        }
        return findProductsDirectory(from: Bundle.main.bundleURL)
    }

    /// The URL of the built executable `name`.
    public static func executable(_ name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }

    private static func findProductsDirectory(from url: URL) -> URL {
        // The xctest bundle on Darwin is a directory; on Linux the test runner is a file in the products directory.
        var candidate = url.deletingLastPathComponent()
        while candidate.path != "/" {
            if candidate.pathExtension == "xctest" {
                candidate = candidate.deletingLastPathComponent()
                continue
            }
            return candidate
        }
        return url.deletingLastPathComponent()
    }
}
