import Foundation
import PrefetchKit
@testable import PreviewCellExample
import Synchronization
import UIKit
import XCTest

/// The cell of the PrefetchUIKit article "Showing a preview first", as it stands (`run` copies it
/// in), driven by a real `AsyncFetcher` whose scripted `PreviewLoader` hands out each preview from
/// the main actor. The cell's hop for that preview is then queued on the main actor before
/// anything the script queues after it, so the script decides what the cell has done by the time
/// the hop lands: the test of the article's promise that a reused cell never shows another
/// photo's preview does not depend on timing.
/// XCTest on Linux cannot call a `@MainActor` test method: each body asserts the main actor.
final class PreviewCellExampleTests: XCTestCase {
    private static let a = URL(string: "https://photos.example/a.jpg")!
    private static let b = URL(string: "https://photos.example/b.jpg")!

    /// A loader whose every load is the test's script.
    private struct ScriptedPhotos: PreviewLoader {
        let script: @Sendable (URL, FetchQuality, @escaping @Sendable (UIImage) -> Void) async throws -> UIImage

        func load(_ url: URL, quality: FetchQuality, preview: @escaping @Sendable (UIImage) -> Void) async throws -> UIImage {
            try await script(url, quality, preview)
        }
    }

    /// Waits, spinning the main run loop, until the cell shows `image`.
    private func waitUntil(_ cell: PreviewingPhotoCell, shows image: UIImage, _ what: String) {
        let shown = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in
            MainActor.assumeIsolated { cell.imageView.image === image }
        }, object: nil)
        shown.expectationDescription = what
        wait(for: [shown], timeout: 60)
    }

    func testTheCellShowsThePreviewThenThePhoto() throws {
        let (a, preview, photo) = (Self.a, UIImage(), UIImage())
        let (rest, sendRest) = AsyncStream<Void>.makeStream()
        let previewShown = expectation(description: "the preview is shown while the photo is on its way")
        let cell = MainActor.assumeIsolated { PreviewingPhotoCell(frame: CGRect(x: 0, y: 0, width: 120, height: 120)) }
        let photos = try AsyncFetcher(loader: ScriptedPhotos { _, quality, sendPreview in
            XCTAssertEqual(quality, .full, "the cell asks for the photo")
            await MainActor.run {
                sendPreview(preview)                   // the cell's hop is queued now...
                Task { @MainActor in                   // ...and runs before this
                    XCTAssertTrue(cell.imageView.image === preview, "the preview is shown")
                    previewShown.fulfill()
                }
            }
            for await _ in rest { break }              // the rest of the body, when the test says
            return photo
        })
        MainActor.assumeIsolated {
            cell.show(a, from: photos, priority: .visible)
            XCTAssertNil(cell.imageView.image, "nothing is cached: the cell starts blank")
        }
        wait(for: [previewShown], timeout: 60)
        sendRest.yield()
        waitUntil(cell, shows: photo, "the photo replaces the preview")
        MainActor.assumeIsolated {
            XCTAssertEqual(cell.url, a)
            XCTAssertTrue(photos.fetchedData(for: a, atLeast: .full) === photo, "the fetcher holds the photo as final")
        }
        // Shown again (a reused cell scrolls back): from the cache, in the same call.
        MainActor.assumeIsolated {
            cell.prepareForReuse()
            XCTAssertNil(cell.imageView.image)
            cell.show(a, from: photos, priority: .visible)
            XCTAssertTrue(cell.imageView.image === photo, "a cached photo is drawn at once, without a hop")
        }
        sendRest.finish()
    }

    func testAReusedCellNeverShowsThePreviewOfThePhotoItShowedBefore() throws {
        let (a, b, previewOfA, photoOfB) = (Self.a, Self.b, UIImage(), UIImage())
        let (never, endNever) = AsyncStream<Void>.makeStream()
        let (rest, sendRest) = AsyncStream<Void>.makeStream()
        let reused = expectation(description: "the cell was reused while a's preview was on its way to it")
        let cell = MainActor.assumeIsolated { PreviewingPhotoCell(frame: CGRect(x: 0, y: 0, width: 120, height: 120)) }
        let fetcher = Mutex<AsyncFetcher<URL, UIImage>?>(nil)
        let photos = try AsyncFetcher(loader: ScriptedPhotos { url, _, sendPreview in
            if url == b {
                for await _ in rest { break }
                return photoOfB
            }
            let photos = try XCTUnwrap(fetcher.withLock { $0 })
            await MainActor.run {
                sendPreview(previewOfA)                // the cell's hop for a is queued now...
                cell.prepareForReuse()                 // ...and before it lands, the cell shows b
                cell.show(b, from: photos, priority: .visible)
                Task { @MainActor in                   // runs after a's hop
                    XCTAssertEqual(cell.url, b)
                    XCTAssertNil(cell.imageView.image, "a's preview is not shown in the cell that shows b")
                    reused.fulfill()
                }
            }
            for await _ in never {}                    // a's photo never comes; the reuse cancelled it
            throw CancellationError()
        })
        fetcher.withLock { $0 = photos }
        MainActor.assumeIsolated { cell.show(a, from: photos, priority: .visible) }
        wait(for: [reused], timeout: 60)
        sendRest.yield()
        waitUntil(cell, shows: photoOfB, "b's photo is shown")
        endNever.finish()
        sendRest.finish()
    }
}
