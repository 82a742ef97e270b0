import ArgumentParser
import PrefetchDemoKit

/// `prefetch-demo`: Apple's "Prefetching collection view data" sample app, in a terminal.
///
/// - Interactive (stdin and stdout are terminals, no `--script`): scroll with the keys and watch
///   cells load ahead of the viewport.
/// - Scripted on a terminal (`--script`): the scenario plays on virtual time, drawn in real time.
/// - Plain (`--plain`, `--json`, or stdout is not a terminal): progress lines and a summary.
@main
struct PrefetchDemoCommand: AsyncParsableCommand {
    /// The command's name, abstract and key help.
    static let configuration = CommandConfiguration(
        commandName: "prefetch-demo",
        abstract: "Apple's prefetching sample app in a terminal: a grid (or list) of 1,000 cells loading over a simulated network.",
        discussion: """
        With a terminal and no --script it is interactive: ↑↓ or j/k scroll, PgUp/PgDn or space fling, \
        g/G top/bottom, a scrolls animated to an item half the list away (the app tells its prefetcher the \
        destination first), n brings new items in above the screen on the simulated network (a feed's new \
        posts: the rows on screen stay put), +/- change the latency, p turns prefetching on and off, c moves to the next policy \
        (none → uikitLike → textureLike → adaptive), m sends a memory warning (the plan keeps only the screen \
        and a fling's landing zone for a while, and the fetcher only their values), q quits. \
        Cells stay blank until their data arrives; cells outside the viewport frame are drawn dimmed, \
        so you see which were prefetched before they scrolled in. The plan is drawn too: ┃ at the left marks \
        the requested window, ◆ at the right where a fling comes to rest, and the column at the far right maps \
        both beside the screen (█); each cell says why it loads or not (▸ requested ahead, ◆ in the landing zone, \
        ↷ flown past: the fling carries the screen past it and the plan skipped it, ✕ withdrawn: requested, then \
        no longer, before its data came).

        --policy none and --no-prefetch differ: under none the controller plans no region ahead but still \
        requests the cells on screen, and the view still prepares cells just ahead of the viewport (whose loads \
        start early); --no-prefetch turns both off, so nothing is asked for before a cell shows.

        Memory figures are modelled: over the simulated network each value costs 1 MiB (a decoded 512 × 512 \
        RGBA bitmap), whatever the process holds; the summary sets the process's peak RSS beside them.

        --previews prefix (or variant) shows previews first: the simulated network becomes one shared link, \
        prefetch-bench's default (the capacity of --latency-profile's network, lte's 10 Mbit/s unless it names \
        another; HTTP/2; payloads log-normal, median 60 KB, p99 600 KB; round trips from the lte profile unless \
        the latency flags say otherwise), where a preview of --preview-share of the payload (15% by default) \
        arrives before the full value. A cell holding only a preview is drawn pale and shaded with ░ and says \
        "░ preview"; the summary counts the cells that appeared full, with a preview only, and blank. \
        --previews applies to the simulated network only, not to --serve or --source.

        Without a terminal (or with --plain) it runs --script steady on virtual time and prints a summary; \
        the same --seed gives the same numbers.

        With --source URL (or --serve, which starts the prefetch-server built next to prefetch-demo as a child \
        process) the models load page by page from URL/items and thumbnails over HTTP through a disk cache \
        (--disk-cache, --cold), in real time: --duration counts wall-clock seconds.
        """)

    /// The options.
    @OptionGroup var options: DemoOptions

    /// Runs the demo in the mode the options and the terminal call for.
    func run() async throws {
        let options = self.options
        try await DemoRunner.run(options)
    }
}

