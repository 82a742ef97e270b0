import PrefetchCollectionView
import PrefetchKit

extension PeerModel {
    /// Makes `simulation` run this peer instead of our controller's decisions: the view plans
    /// the peer's window for the scenario's geometry and network, hands it to the returned
    /// prefetcher through UIKit's two callbacks, prepares no cells ahead when the peer's window
    /// is where its framework builds cells, and every cell asks for its data at `visible`, first
    /// come first served (no peer ranks its visible loads).
    ///
    /// The view holds its prefetch data source weakly: keep the prefetcher until the run ends.
    /// - Throws: ``SimulationError`` for a layout the geometry cannot be read from.
    @MainActor
    func install<ID, Value>(on simulation: Simulation<ID, Value>) throws -> PeerPrefetcher<ID, Value> {
        let app = simulation.app
        let geometry: PeerGeometry
        do {
            geometry = try PeerGeometry.of(simulation.scenario.layout, in: simulation.scenario.viewport)
        } catch let error as PrefetchError {
            throw SimulationError(error.message)
        }
        app.detachPrefetcher()   // the peer's own prefetcher, fed by the view's two callbacks, takes over
        app.view.prefetchPolicy = window(geometry: geometry, latency: simulation.configuration.latency)
        app.fixedPriority = .visible
        if loading.buildsCells { app.view.cellPreparationDistance = 0 }
        let prefetcher = PeerPrefetcher(loading: loading, fetcher: app.fetcher, deliveries: simulation.loop.deliveries, identifier: app.identifier)
        if let grid = app.view as? CollectionView {
            grid.prefetchDataSource = prefetcher
        } else if let list = app.view as? TableView {
            list.prefetchDataSource = prefetcher
        }
        return prefetcher
    }
}

extension SimulationPolicy {
    /// The peers: the prefetching of libraries an app might use instead, modelled from their
    /// documented defaults (`nuke`, `kingfisher`, `sdwebimage`, `flashlist`, `compose`,
    /// `flutter`, `chrome`, `glide`). `prefetch-bench run --peers` runs them beside ``standard``;
    /// the article "Peers side by side" gives each one's rule and source. Run them with
    /// ``Simulator`` or ``SuiteRun``, which give the view the peer's prefetcher; a ``Simulation``
    /// made directly on a peer's policy plans its window but loads it as our controller would.
    public static let peers: [SimulationPolicy] = PeerModel.all.map { .policy(PeerPolicy(model: $0)) }
}
