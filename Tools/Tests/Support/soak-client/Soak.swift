import Foundation
import IOTestSupport
import PrefetchCollectionView
import PrefetchDemoKit
import PrefetchDiskCache
import PrefetchFeed
import PrefetchHTTP
import PrefetchKit
import PrefetchSimulation
import PrefetchToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// The soak's settings: the server's faults, the feed's size, the cache's limit.
enum SoakSettings {
    static let itemCount = 3_000
    static let thumbnailSize = 4_096
    static let serverSeed: UInt64 = 11
    /// Small enough that the disk cache evicts during the run.
    static let diskCacheLimit = 2 * 1024 * 1024
    /// The same faults as `prefetch-demo --serve --server-faults`.
    static let faults = FaultSoak.serverArguments
}

/// The bytes the server sends for `id`: an oracle written from the payload format, independent of
/// the client code under test (8-byte big-endian words of a SplitMix64 stream seeded per id).
func expectedThumbnail(id: Int) -> Data {
    var random = SplitMix64(seed: SoakSettings.serverSeed ^ (UInt64(id) &* 0x9E37_79B9_7F4A_7C15))
    var data = Data(capacity: SoakSettings.thumbnailSize)
    for _ in 0..<(SoakSettings.thumbnailSize / 8) {
        withUnsafeBytes(of: random.next().bigEndian) { data.append(contentsOf: $0) }
    }
    return data
}

/// What a visible cell shows.
enum CellState: Equatable {
    /// The item's page has not arrived.
    case placeholder
    case loading(Int)
    case shown(Int, SoakValue)
    /// The load failed after its retries; the cell says so, and loads again when it is shown again.
    case failed(Int)
    /// Neither data nor a load (never right for a visible cell at rest).
    case idle(Int)

    @MainActor init(_ content: SampleCellContent<Int, SoakValue>) {
        guard let id = content.identifier else {
            self = .placeholder
            return
        }
        if let data = content.data { self = .shown(id, data) }
        else if content.isLoading { self = .loading(id) }
        else if content.loadFailed { self = .failed(id) }
        else { self = .idle(id) }
    }
}

/// The feed's titles mirrored each frame: an item's identifier is known once its page arrived.
@MainActor
final class FeedMirror {
    var titles: [Int: String] = [:]
}

/// The server child: started on a port, killed, started again on the same port.
@MainActor
final class ServerChild {
    let executable: URL
    private(set) var process: Process?
    private(set) var port = 0

    init(executable: URL) { self.executable = executable }

    func start(port: Int) async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["--port", "\(port)", "--items", "\(SoakSettings.itemCount)", "--thumb-size",
                             "\(SoakSettings.thumbnailSize)", "--seed", "\(SoakSettings.serverSeed)",
                             "--parent-pid", "\(getpid())"] + SoakSettings.faults
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let lines = await OutputReader(stdout.fileHandleForReading).waitForLines(timeout: .seconds(30)) { lines in
            lines.contains { $0.hasPrefix("listening on ") }
        }
        guard let line = lines.first(where: { $0.hasPrefix("listening on ") }), let bound = Int(line.split(separator: ":").last ?? "") else {
            throw SoakError("prefetch-server did not listen on port \(port): \(lines)")
        }
        self.port = bound
    }

    /// SIGKILL: connections in flight are cut, as in a crash.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var pid: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }
}

struct SoakError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@MainActor
final class Soak {
    let serverExecutable: URL
    let directory: URL
    let seconds: Double
    /// `--value-bytes`: the decoded size of a value, or `nil` for the thumbnail itself.
    let valueBytes: Int?
    /// `--memory-budget-mb` in bytes, or `nil` for no budget.
    let memoryBudget: Int?
    var random: SplitMix64
    let clock = ContinuousClock()

    // Measurements
    var wrongCells: [String] = []
    var frames = 0
    var clientRSS: (baseline: Double, peak: Double) = (0, 0)
    var clientFDs: (baseline: Int, peak: Int) = (0, 0)
    var serverRSSPeak = 0.0
    var serverFDsPeak = 0
    var errors: [String: Int] = [:]
    var pageRetries = 0

    init(options: SoakOptions) {
        self.serverExecutable = options.server
        self.directory = options.directory
        self.seconds = options.seconds
        self.valueBytes = options.valueBytes
        self.memoryBudget = options.memoryBudgetBytes
        self.random = SplitMix64(seed: options.seed)
    }

    func run() async throws -> [String: Any] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let server = ServerChild(executable: serverExecutable)
        try await server.start(port: 0)
        defer { server.kill() }
        let base = "http://127.0.0.1:\(server.port)"

        var httpConfiguration = HTTPLoaderConfiguration()
        httpConfiguration.connectTimeout = .seconds(3)
        httpConfiguration.totalTimeout = .seconds(8)
        let http = try HTTPLoader<Int>(configuration: httpConfiguration) { id in URL(string: "\(base)/thumb/\(id)")! }
        var cacheConfiguration = DiskCacheConfiguration(fileURL: directory.appendingPathComponent("soak.sqlite"))
        cacheConfiguration.sizeLimit = SoakSettings.diskCacheLimit
        let disk = try DiskCache<Int>(configuration: cacheConfiguration)
        try await disk.removeAll()
        var fetcherConfiguration = FetcherConfiguration()
        fetcherConfiguration.maxConcurrentLoads = 6
        fetcherConfiguration.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50), maxDelay: .milliseconds(400))
        fetcherConfiguration.cacheCountLimit = 300
        if let memoryBudget { fetcherConfiguration.memoryBudget = memoryBudget }
        let errorCounts = Locked([String: Int]())
        let decodedBytes = valueBytes
        let fetcher = try AsyncFetcher(configuration: fetcherConfiguration, store: DecodingStore(disk: disk, decodedBytes: decodedBytes),
                                       cost: { $0.cost }, onEvent: { event in
            if case .loadFailed(_, let error, _) = event {
                let code = (error as? HTTPLoaderError).map { "\($0.code)" } ?? "\(type(of: error))"
                errorCounts.withLock { $0[code, default: 0] += 1 }
            }
        }, loader: DecodingLoader(http: http, decodedBytes: decodedBytes))
        var feedConfiguration = FeedConfiguration()
        feedConfiguration.maxLoadedPages = 12
        feedConfiguration.retry = RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(50), maxDelay: .milliseconds(400))
        let feed = try PagedFeed(configuration: feedConfiguration, loader: HTTPFeedPageLoader(baseURL: URL(string: base)!, configuration: httpConfiguration))

        let mirror = FeedMirror()
        let app = try SampleApp(
            layout: .list(itemCount: SoakSettings.itemCount), viewport: Viewport(width: 375, height: 660), fetcher: fetcher,
            meter: ReadinessMeter(now: { 0 }), identifier: { mirror.titles[$0] != nil ? $0 : nil })
        let view = app.view

        let start = clock.now
        var elapsed: Double { (clock.now - start).seconds }
        var restarted = false
        var nextSample = 0.0
        var lastFeedRetry = 0.0
        let step = { (t: Double) async throws in
            app.step(to: t)
            try await self.frame(app, mirror: mirror, feed: feed, at: t, lastFeedRetry: &lastFeedRetry)
        }
        // Scripted scrolling in real time, about 30 frames a second.
        let script = Self.gestures(&random, lasting: seconds)
        var gestures = GestureDriver(gestures: script)
        _ = try await FrameDriver(frameRate: 30, tail: seconds, duration: seconds, realTime: true).play(
            &gestures, on: view, step: step,
            afterFrame: { frame in
                if !restarted, frame.time >= min(FaultSoak.restartAfter, seconds / 2) {
                    // A server crash mid-run: every connection is cut; a second later it is back on the same port.
                    server.kill()
                    try await clock.sleep(for: .seconds(1))
                    try await server.start(port: server.port)
                    restarted = true
                }
                if frame.time >= nextSample {
                    sample(server: server)
                    nextSample = frame.time + 1
                }
                return true
            })
        if view.isDragging { view.endDragging() }
        let scrolled = elapsed

        // Settle: no more gestures; give every visible cell its data or its failed state.
        var none = GestureDriver(gestures: [])
        _ = try await FrameDriver(frameRate: 30, tail: 30, duration: 30, realTime: true).play(&none, on: view, from: elapsed, step: step) { _ in
            view.isDecelerating || !visibleStates(app).allSatisfy { if case .shown = $0 { true } else if case .failed = $0 { true } else { false } }
        }
        let failedAtRest = visibleStates(app).filter { if case .failed = $0 { true } else { false } }.count
        // Failed cells retry when shown again: scroll away and back, then settle again.
        var recovered = 0
        if failedAtRest > 0 {
            let home = app.visibleItems.first ?? 0
            var away = GestureDriver(gestures: [.jump(item: (home + 500) % SoakSettings.itemCount), .pause(duration: 0), .jump(item: home)])
            _ = try await FrameDriver(frameRate: 30, tail: 30, duration: 30, realTime: true).play(&away, on: view, from: elapsed, step: step) { frame in
                frame.index < 3 || !visibleStates(app).allSatisfy { if case .shown = $0 { true } else { false } }
            }
            recovered = failedAtRest - visibleStates(app).filter { if case .failed = $0 { true } else { false } }.count
        }
        let finalStates = visibleStates(app)
        let stuck = finalStates.filter { if case .shown = $0 { false } else { true } }.count
        sample(server: server)

        // Afterwards: nothing in the disk cache is partial (every value is its id's whole thumbnail).
        fetcher.shutdown()
        http.invalidate()
        await feed.reset()
        try await disk.flush()
        let entries = try await disk.allEntries()
        var partial = 0
        for entry in entries {
            let id = Int(Int64(bigEndian: entry.key.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }))
            if entry.key.count != 8 || entry.value != expectedThumbnail(id: id) { partial += 1 }
        }
        let diskBytes = try await disk.totalSize()
        try await disk.close()

        errors = errorCounts.withLock { $0 }
        let stats = fetcher.statistics
        return [
            "secondsScrolled": (scrolled * 10).rounded() / 10,
            "frames": frames,
            "gestures": script.count,
            "serverRestarts": restarted ? 1 : 0,
            "wrongCells": wrongCells.count,
            "wrongCellExamples": Array(wrongCells.prefix(5)),
            "visibleCellsAtEnd": finalStates.count,
            "failedCellsAtRest": failedAtRest,
            "failedCellsRecoveredOnScrollBack": recovered,
            "stuckCells": stuck,
            "loadsStarted": stats.loadsStarted,
            "loadsFailed": stats.loadsFailed,
            "retries": stats.retries,
            "storeHits": stats.storeHits,
            "loadErrorsByCode": errors,
            "pageRetriesByHand": pageRetries,
            "feedPageRequests": await feed.requestCount,
            "valueBytes": valueBytes ?? 0,
            "memoryBudgetMiB": memoryBudget.map { $0 >> 20 } ?? 0,
            "fetcherPeakMemoryHeldBytes": stats.peakMemoryHeld,
            "fetcherPeakMemoryHeldMiB": (Double(stats.peakMemoryHeld) / 1_048_576 * 10).rounded() / 10,
            "clientRSSBaselineMiB": (clientRSS.baseline * 10).rounded() / 10,
            "clientRSSPeakMiB": (clientRSS.peak * 10).rounded() / 10,
            "clientFDsBaseline": clientFDs.baseline,
            "clientFDsPeak": clientFDs.peak,
            "serverRSSPeakMiB": (serverRSSPeak * 10).rounded() / 10,
            "serverFDsPeak": serverFDsPeak,
            "diskEntries": entries.count,
            "diskBytes": diskBytes,
            "partialDiskEntries": partial,
        ]
    }

    /// After the view stepped: mirror the feed's items for what is on screen, fill placeholder
    /// cells whose page arrived, check every visible cell.
    func frame(_ app: SampleApp<Int, SoakValue>, mirror: FeedMirror, feed: PagedFeed<FeedItem>, at time: Double, lastFeedRetry: inout Double) async throws {
        frames += 1
        sampleClientMemory()
        let visible = app.visibleItems
        guard let first = visible.min(), let last = visible.max() else { return }
        await feed.loadMoreIfNeeded(visibleRange: first..<(last + 1))
        if case .failed = await feed.phase, time - lastFeedRetry > 1 {
            lastFeedRetry = time
            pageRetries += 1
            await feed.retryFailedPages()
        }
        let window = max(0, first - 20)..<min(SoakSettings.itemCount, last + 21)
        for index in window where mirror.titles[index] == nil {
            guard let item = await feed.item(at: index) else { continue }
            if item.id != index || item.title != "Item \(index)" {
                wrongCells.append("row \(index) got feed item \(item.id) \"\(item.title)\"")
            }
            mirror.titles[index] = item.title
        }
        // Pages the feed dropped are forgotten too, so the mirror stays as bounded as the feed.
        if mirror.titles.count > 2_000 {
            mirror.titles = mirror.titles.filter { window.contains($0.key) }
        }
        app.fillPlaceholders()
        for index in visible {
            guard let content = app.content(at: index) else {
                wrongCells.append("no cell at \(index)")
                continue
            }
            guard content.item == index else {
                wrongCells.append("cell at row \(index) represents \(String(describing: content.item))")
                continue
            }
            switch CellState(content) {
            case .placeholder: break
            case .loading(let id), .failed(let id), .idle(let id):
                if id != index { wrongCells.append("cell at row \(index) is loading or failed for \(id)") }
            case .shown(let id, let value):
                if id != index || !value.matches(expectedThumbnail(id: index), decodedBytes: valueBytes) {
                    wrongCells.append("cell at row \(index) shows item \(id)'s data (\(value.thumbnail.count) + \(value.decoded.count) bytes)")
                }
            }
        }
    }

    func visibleStates(_ app: SampleApp<Int, SoakValue>) -> [CellState] {
        app.visibleItems.compactMap { app.content(at: $0).map(CellState.init) }
    }

    /// Seeded drags, flings, reversals, jumps and pauses for about `seconds` of scrolling (more
    /// than enough: a fling lasts until the view rests).
    static func gestures(_ random: inout SplitMix64, lasting seconds: Double) -> [ScrollGesture] {
        var gestures: [ScrollGesture] = [.pause(duration: 0.5)]
        var total = 0.5
        while total < 2 * seconds {
            let u = random.nextUnitInterval(), v = random.nextUnitInterval()
            switch u {
            case ..<0.35:
                gestures.append(.drag(speed: (v < 0.3 ? -1 : 1) * (300 + 1_200 * v), duration: 1 + 2 * v))
                total += 1 + 2 * v
            case ..<0.65:
                gestures.append(.fling(velocity: (v < 0.35 ? -1 : 1) * (2_000 + 6_000 * v)))
                total += 2.5
            case ..<0.75:
                gestures += [.jump(item: Int(v * Double(SoakSettings.itemCount - 20))), .pause(duration: 1)]
                total += 1
            default:
                gestures.append(.pause(duration: 0.5 + 2 * v))
                total += 0.5 + 2 * v
            }
        }
        return gestures
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
