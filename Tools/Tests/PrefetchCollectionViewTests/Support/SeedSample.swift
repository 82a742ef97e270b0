import Foundation
import PrefetchCollectionView
import PrefetchKit
import PrefetchToolSupport

// Apple's sample ("Prefetching collection view data"), ported to the headless view.
// `ScriptedFetcher` stands in for the sample's AsyncFetcher on virtual time.

/// The data a cell shows: Apple's sample's `DisplayData`.
struct DisplayData: Equatable {
    var identifier: Int
    var color: String { "color-\(identifier)" }
}

/// Apple's sample's model: an identifier per item.
struct Model: Hashable {
    var identifier: Int
}

/// The package's seedable generator, under the name these tests use.
typealias SeededRandom = SplitMix64

/// A fetcher on virtual time with Apple's sample's AsyncFetcher API: `fetchAsync`, `fetchedData(for:)`,
/// `cancelFetch`. A load finishes `latency(id)` seconds after it starts, when the test calls
/// ``advance(to:)``. Cancelling drops the prefetch interest only: a load with completion handlers
/// keeps running (the DESIGN's fix to the blank-cell bug of Apple's sample).
@MainActor
final class ScriptedFetcher {
    private struct Load {
        var finishTime: Double
        var completions: [(DisplayData?) -> Void]
    }

    var latency: (Int) -> Double
    private(set) var now = 0.0
    private(set) var cache: [Int: DisplayData] = [:]
    private var loads: [Int: Load] = [:]
    private(set) var started: [Int] = []
    private(set) var cancelled: [Int] = []

    init(latency: @escaping (Int) -> Double) {
        self.latency = latency
    }

    func fetchedData(for identifier: Int) -> DisplayData? { cache[identifier] }

    func isLoading(_ identifier: Int) -> Bool { loads[identifier] != nil }

    func fetchAsync(_ identifier: Int, completion: ((DisplayData?) -> Void)? = nil) {
        if let data = cache[identifier] {
            completion?(data)
            return
        }
        if loads[identifier] == nil {
            loads[identifier] = Load(finishTime: now + latency(identifier), completions: [])
            started.append(identifier)
        }
        if let completion { loads[identifier]?.completions.append(completion) }
    }

    func cancelFetch(_ identifier: Int) {
        guard let load = loads[identifier], load.completions.isEmpty else { return }
        loads[identifier] = nil
        cancelled.append(identifier)
    }

    /// Finishes, in time order, every load due by `time`.
    func advance(to time: Double) {
        now = time
        let due = loads.filter { $0.value.finishTime <= time }.sorted { ($0.value.finishTime, $0.key) < ($1.value.finishTime, $1.key) }
        for (identifier, load) in due {
            loads[identifier] = nil
            let data = DisplayData(identifier: identifier)
            cache[identifier] = data
            for completion in load.completions { completion(data) }
        }
    }
}

/// Apple's sample's `Cell`.
final class Cell: CollectionViewCell {
    static let reuseIdentifier = "reuseIdentifier"
    var representedIdentifier: Int?
    private(set) var shownData: DisplayData?
    private(set) var reuseCount = 0

    func configure(with data: DisplayData?) {
        shownData = data
    }

    override func prepareForReuse() {
        super.prepareForReuse()
        reuseCount += 1
    }
}

/// Apple's sample's `CustomDataSource`, almost line for line.
@MainActor
final class CustomDataSource: CollectionViewDataSource, CollectionViewDataSourcePrefetching {
    var models: [Model]
    let asyncFetcher: ScriptedFetcher
    /// How each cellForItemAt found the data: loaded, in flight, or not requested.
    private(set) var cellStates: [Int: [String]] = [:]

    init(models: [Model], fetcher: ScriptedFetcher) {
        self.models = models
        self.asyncFetcher = fetcher
    }

    func collectionView(_ collectionView: CollectionView, numberOfItemsInSection section: Int) -> Int {
        models.count
    }

    func collectionView(_ collectionView: CollectionView, cellForItemAt indexPath: IndexPath) -> CollectionViewCell {
        guard let cell = collectionView.dequeueReusableCell(withReuseIdentifier: Cell.reuseIdentifier, for: indexPath) as? Cell else {
            fatalError("Expected `\(Cell.self)` type for reuseIdentifier \(Cell.reuseIdentifier).")
        }

        let model = models[indexPath.row]
        let identifier = model.identifier
        cell.representedIdentifier = identifier

        // Check if the `asyncFetcher` has already fetched data for the specified identifier.
        if let fetchedData = asyncFetcher.fetchedData(for: identifier) {
            cellStates[identifier, default: []].append("loaded")
            cell.configure(with: fetchedData)
        } else {
            cellStates[identifier, default: []].append(asyncFetcher.isLoading(identifier) ? "inFlight" : "notRequested")
            // There is no data available; clear the cell until the fetched data arrives.
            cell.configure(with: nil)

            // Ask the `asyncFetcher` to fetch data for the specified identifier.
            asyncFetcher.fetchAsync(identifier) { fetchedData in
                // Before updating the cell, check whether the collection view has recycled it.
                guard cell.representedIdentifier == identifier else { return }
                cell.configure(with: fetchedData)
            }
        }
        return cell
    }

    func collectionView(_ collectionView: CollectionView, prefetchItemsAt indexPaths: [IndexPath]) {
        // Begin asynchronously fetching data for the requested index paths.
        for indexPath in indexPaths {
            let model = models[indexPath.row]
            asyncFetcher.fetchAsync(model.identifier)
        }
    }

    func collectionView(_ collectionView: CollectionView, cancelPrefetchingForItemsAt indexPaths: [IndexPath]) {
        // Cancel any in-flight requests for data for the specified index paths.
        for indexPath in indexPaths {
            let model = models[indexPath.row]
            asyncFetcher.cancelFetch(model.identifier)
        }
    }
}

/// Data sources the views of finished tests held weakly; the views hold them weakly, as UIKit does.
@MainActor private var keptAlive: [AnyObject] = []

/// Apple's sample's view: 343×333 points, 150×100 items, spacing 10. The data source is kept alive
/// for the rest of the test run, since the view holds it weakly.
@MainActor
func makeSeedCollectionView(
    itemCount: Int = 1000,
    latency: @escaping (Int) -> Double = { _ in 0.1 }
) throws -> (CollectionView, CustomDataSource, EventRecorder) {
    let layout = try FlowLayout(
        itemSize: CGSize(width: 150, height: 100),
        minimumLineSpacing: 10,
        minimumInteritemSpacing: 10,
        sectionInset: ContentInsets(top: 10, left: 10, bottom: 10, right: 10)
    )
    let collectionView = CollectionView(frame: CGRect(x: 0, y: 0, width: 343, height: 333), collectionViewLayout: layout)
    let fetcher = ScriptedFetcher(latency: latency)
    let dataSource = CustomDataSource(models: (0..<itemCount).map { Model(identifier: $0) }, fetcher: fetcher)
    collectionView.register(Cell.self, forCellWithReuseIdentifier: Cell.reuseIdentifier)
    collectionView.dataSource = dataSource
    collectionView.prefetchDataSource = dataSource
    let recorder = EventRecorder()
    recorder.attach(to: collectionView)
    keptAlive.append(dataSource)
    return (collectionView, dataSource, recorder)
}

/// Issues found by ``checkCells(_:_:)``.
@MainActor
func wrongCells(_ collectionView: CollectionView, _ dataSource: CustomDataSource) -> [String] {
    var problems: [String] = []
    for indexPath in collectionView.indexPathsForVisibleItems {
        guard let cell = collectionView.cellForItem(at: indexPath) as? Cell else {
            problems.append("no cell at \(indexPath)")
            continue
        }
        let expected = dataSource.models[indexPath.item].identifier
        if cell.representedIdentifier != expected {
            problems.append("cell at \(indexPath) represents \(String(describing: cell.representedIdentifier)), expected \(expected)")
        }
        if let shown = cell.shownData, shown.identifier != expected {
            problems.append("cell at \(indexPath) shows data of \(shown.identifier), expected \(expected)")
        }
    }
    return problems
}

/// Runs frames at 60 Hz from `start` for `count` frames: fetcher first, then the view, checking
/// invariants and cell contents after every frame. Returns the problems found.
@MainActor
func runFrames(
    _ collectionView: CollectionView, _ dataSource: CustomDataSource,
    from start: Double, count: Int, beforeFrame: (Int) -> Void = { _ in }
) -> [String] {
    var problems: [String] = []
    for frame in 0..<count {
        let time = start + Double(frame) / 60
        beforeFrame(frame)
        dataSource.asyncFetcher.advance(to: time)
        collectionView.step(to: time)
        collectionView._checkInvariants()
        problems += wrongCells(collectionView, dataSource)
    }
    return problems
}
