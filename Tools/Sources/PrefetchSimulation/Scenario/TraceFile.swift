import Foundation

/// Reads a user's scroll trace from JSON.
///
/// The format:
/// ```json
/// {
///   "name": "my-feed",
///   "viewport": {"width": 375, "height": 667},
///   "layout": {"kind": "list", "itemCount": 5000, "itemHeight": 66},
///   "samples": [[0, 0], [0.5, 400], [1.2, 1800]],
///   "gestures": [{"pause": {"duration": 1}}, {"fling": {"velocity": 3000}}]
/// }
/// ```
/// - `layout.kind` is `grid` or `list`; a grid also takes `itemWidth` and `spacing` (default 10).
/// - `samples` are `[seconds, offset]` pairs in time order; offsets are interpolated between them.
///   Every offset lies in the content, `0...max(0, contentLength - viewport height)`, give or take
///   half a point for pixel rounding: the format has no overscroll (rubber-banding).
///   A sample may carry its phase, `[seconds, offset, "touching" | "decelerating" | "idle"]`, and
///   the touch-up sample its predicted resting offset, `[seconds, offset, "decelerating", resting]`
///   (see the article <doc:TraceFormat> for the rules; traces without phases have them inferred on replay).
/// - `gestures` (used when there are no samples) are objects with one key each: `drag`
///   (`speed` pt/s, `duration` s), `fling` (`velocity` pt/s; with `for` s, the next gesture starts
///   that long after the touch-up, while the view may still coast), `jump` (`item`), `pause`
///   (`duration` s), and the moments apps make: `animate` (`item`, `duration` s, 0.3 by default:
///   the app's animated `scrollToItem`, UIKit's ease-in-out curve), `statusBarTap` (`{}`: animated
///   to the top), `restore` (`offset`: the app's `setContentOffset` without animation) and
///   `rotate` (`width`, `height`: the viewport's new size), `insertAbove` and `deleteAbove`
///   (`count` items above the first, the app keeping the user's place; with `after` s, during the
///   gesture before, that long after it started, such as a snapshot applied mid-drag).
/// - `layout.rowHeights` (list only, optional): each row's own height, an array of one height per
///   item or a profile, `{"profile": "feed", "seed": 7}` (``RowHeights``); `itemHeight` is then
///   the typical row, by default the rows' mean.
/// - `layout.selfSizing` (optional, `false` by default; a list with `rowHeights`, gestures only):
///   the rows size themselves as a UIKit app's self-sizing cells do, each laid out at
///   `itemHeight` until it comes on screen.
/// - `payloadBytes` (default 50,000) is each item's size under the independent network model.
/// - `itemBytes` (optional) gives each item's size, one per item, on a shared link; without it
///   the link's sizes apply.
/// - `bounces` (optional, `false` by default; gestures only): the view rubber-bands as UIKit's
///   does, so a drag past either end shows offsets past it and springs back when it lets go.
///
/// Every error names the file and the path to the bad field, such as `trace.json: samples[3][1]: …`.
public enum TraceFile {
    /// Every `*.json` trace in `folder`, in name order: `prefetch-bench --traces DIR`.
    /// - Throws: ``SimulationError`` naming the folder when it cannot be read or holds no trace,
    ///   or a trace's own error.
    public static func loadFolder(_ folder: URL) throws -> [Scenario] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw SimulationError(path: folder.path, "cannot read the trace folder: \(error.localizedDescription)")
        }
        let traces = names.filter { $0.hasSuffix(".json") }.sorted()
        guard !traces.isEmpty else { throw SimulationError(path: folder.path, "the trace folder holds no *.json trace") }
        return try traces.map { try load(from: folder.appendingPathComponent($0)) }
    }

    /// Reads and checks a trace file.
    /// - Throws: ``SimulationError`` with the path to the bad field.
    public static func load(from url: URL) throws -> Scenario {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SimulationError(path: url.lastPathComponent, "cannot read the trace file at \(url.path): \(error.localizedDescription)")
        }
        return try parse(data, fileName: url.lastPathComponent)
    }

    /// Parses and checks a trace.
    /// - Throws: ``SimulationError`` with the path to the bad field.
    public static func parse(_ data: Data, fileName: String = "trace") throws -> Scenario {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw SimulationError(path: fileName, "is not valid JSON (\(error.localizedDescription))")
        }
        var reader = Reader(file: fileName)
        var scenario = try reader.scenario(root)
        do {
            try scenario.validate()
            if case .samples(let samples) = scenario.motion {
                try checkOffsets(samples, layout: scenario.layout, viewport: scenario.viewport)
                scenario.motion = .samples(try TracePhases.checked(samples, offsetRange: scenario.layout.offsetRange(viewport: scenario.viewport)))
            }
        } catch let error as SimulationError {
            throw SimulationError(path: error.path.isEmpty ? fileName : "\(fileName): \(error.path)", error.message)
        }
        return scenario
    }

    /// Writes a scenario in the trace format: its samples with their phases (a recorded or
    /// generated trace of samples), or its gestures with `bounces` and `layout.selfSizing` when set.
    /// ``parse(_:fileName:)`` reads back the same scenario.
    /// - Throws: ``SimulationError`` when the scenario is invalid.
    public static func encode(_ scenario: Scenario) throws -> Data {
        try scenario.validate()
        let layout = scenario.layout
        var layoutFields = "\"kind\": \"\(layout.kind.rawValue)\", \"itemCount\": \(layout.itemCount), \"itemHeight\": \(number(layout.itemHeight))"
        if layout.kind == .grid {
            layoutFields += ", \"itemWidth\": \(number(layout.itemWidth)), \"spacing\": \(number(layout.spacing))"
            if layout.sectionInset > 0 { layoutFields += ", \"sectionInset\": \(number(layout.sectionInset))" }
        }
        switch layout.rowHeights {
        case .feed(let seed): layoutFields += ", \"rowHeights\": {\"profile\": \"feed\", \"seed\": \(seed)}"
        case .perItem(let heights): layoutFields += ", \"rowHeights\": [" + heights.map(number).joined(separator: ", ") + "]"
        case nil: break
        }
        if scenario.selfSizing { layoutFields += ", \"selfSizing\": true" }
        let motion: String
        switch scenario.motion {
        case .samples(let samples):
            try checkOffsets(samples, layout: scenario.layout, viewport: scenario.viewport)
            let lines = samples.map { s -> String in
                var fields = [number(s.time), number(s.offset)]
                if let phase = s.phase { fields.append("\"\(phase.rawValue)\"") }
                if let resting = s.restingOffset { fields.append(number(resting)) }
                return "    [" + fields.joined(separator: ", ") + "]"
            }
            motion = "\"samples\": [\n" + lines.joined(separator: ",\n") + "\n  ]"
        case .gestures(let gestures):
            motion = (scenario.bounces ? "\"bounces\": true,\n  " : "")
                + "\"gestures\": [\n" + gestures.map { "    " + encode($0) }.joined(separator: ",\n") + "\n  ]"
        }
        let name = String(decoding: try JSONSerialization.data(withJSONObject: [scenario.name], options: []), as: UTF8.self).dropFirst().dropLast()
        let itemBytes = scenario.itemBytes.map { "\n  \"itemBytes\": [" + $0.map(String.init).joined(separator: ", ") + "]," } ?? ""
        let text = """
            {
              "name": \(name),
              "viewport": {"width": \(number(scenario.viewport.width)), "height": \(number(scenario.viewport.height))},
              "layout": {\(layoutFields)},
              "payloadBytes": \(scenario.payloadBytes),\(itemBytes)
              \(motion)
            }

            """
        return Data(text.utf8)
    }

    /// A number as the format writes it: whole numbers without a fraction; others in the
    /// shortest form that reads back exactly.
    private static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : "\(x)"
    }

    /// One gesture as an object with one key, as the reader takes it.
    private static func encode(_ gesture: ScrollGesture) -> String {
        func object(_ key: String, _ fields: [(String, Double)]) -> String {
            "{\"\(key)\": {" + fields.map { "\"\($0.0)\": \(number($0.1))" }.joined(separator: ", ") + "}}"
        }
        switch gesture {
        case .drag(let speed, let duration): return object("drag", [("speed", speed), ("duration", duration)])
        case .fling(let velocity): return object("fling", [("velocity", velocity)])
        case .flingFor(let velocity, let duration): return object("fling", [("velocity", velocity), ("for", duration)])
        case .jump(let item): return object("jump", [("item", Double(item))])
        case .pause(let duration): return object("pause", [("duration", duration)])
        case .animate(let item, let duration): return object("animate", [("item", Double(item)), ("duration", duration)])
        case .statusBarTap: return object("statusBarTap", [])
        case .restore(let offset): return object("restore", [("offset", offset)])
        case .rotate(let width, let height): return object("rotate", [("width", width), ("height", height)])
        case .insertAbove(let count, let after): return object("insertAbove", [("count", Double(count))] + (after.map { [("after", $0)] } ?? []))
        case .deleteAbove(let count, let after): return object("deleteAbove", [("count", Double(count))] + (after.map { [("after", $0)] } ?? []))
        }
    }

    /// How far (in points) a sample's offset may lie outside the content: half a point, for
    /// offsets rounded to the pixel grid. The format has no overscroll: the replayed view does not
    /// bounce, so a recording app clamps rubber-banded offsets to the content (or drops them).
    static let offsetTolerance = 0.5

    /// Checks that every sample's offset lies in the content, `0...max(0, contentLength - viewport
    /// height)`, give or take ``offsetTolerance``.
    /// - Throws: ``SimulationError`` at `samples[i][1]` naming the sample's time, its offset and the range.
    static func checkOffsets(_ samples: [OffsetSample], layout: ScenarioLayout, viewport: Viewport) throws {
        let range = layout.offsetRange(viewport: viewport)
        let admitted = (range.lowerBound - offsetTolerance)...(range.upperBound + offsetTolerance)
        guard let bad = samples.firstIndex(where: { !admitted.contains($0.offset) }) else { return }
        let sample = samples[bad]
        throw SimulationError(
            path: "samples[\(bad)][1]",
            "offset \(sample.offset) at \(sample.time) s is outside the content; every sample's offset must lie in "
                + "\(range.lowerBound)...\(range.upperBound) (give or take \(offsetTolerance) pt), the offsets of "
                + "\(layout.itemCount) items of this layout in a \(viewport.height)-point viewport")
    }

    private struct Reader {
        let file: String
        /// The gestures a trace may hold, for errors.
        static let gestureNames = "drag, fling, jump, pause, animate, statusBarTap, restore, rotate, insertAbove or deleteAbove"

        func fail(_ path: String, _ message: String) -> SimulationError {
            SimulationError(path: "\(file): \(path)", message)
        }

        func object(_ value: Any?, _ path: String) throws -> [String: Any] {
            guard let value else { throw fail(path, "is missing; expected an object") }
            guard let object = value as? [String: Any] else { throw fail(path, "expected an object, got \(describe(value))") }
            return object
        }

        func number(_ value: Any?, _ path: String, default fallback: Double? = nil) throws -> Double {
            guard let value else {
                if let fallback { return fallback }
                throw fail(path, "is missing; expected a number")
            }
            // JSON booleans arrive as NSNumber too; their class gives them away on Linux and Darwin alike.
            if type(of: value) == Bool.self || String(describing: type(of: value)).contains("Boolean") {
                throw fail(path, "expected a number, got a boolean")
            }
            if let number = value as? NSNumber { return number.doubleValue }
            throw fail(path, "expected a number, got \(describe(value))")
        }

        func integer(_ value: Any?, _ path: String, default fallback: Int? = nil) throws -> Int {
            let n = try number(value, path, default: fallback.map(Double.init))
            guard n.isFinite, n == n.rounded(), abs(n) < 1e15 else { throw fail(path, "expected a whole number, got \(n)") }
            return Int(n)
        }

        /// A JSON `true` or `false`, not a number: JSON's booleans and numbers may both arrive as
        /// `NSNumber`, whose class tells them apart on Linux and Darwin alike.
        func flag(_ value: Any, _ path: String) throws -> Bool {
            guard let flag = value as? Bool, type(of: value) == Bool.self || String(describing: type(of: value)).contains("Boolean") else {
                throw fail(path, "expected true or false, got \(describe(value))")
            }
            return flag
        }

        func describe(_ value: Any) -> String {
            switch value {
            case is String: "a string"
            case is [Any]: "an array"
            case is [String: Any]: "an object"
            case is NSNull: "null"
            default: "\(value)"
            }
        }

        mutating func scenario(_ root: Any) throws -> Scenario {
            guard let top = root as? [String: Any] else { throw SimulationError(path: file, "expected a JSON object at the top level, got \(describe(root))") }
            let viewportObject = try object(top["viewport"], "viewport")
            let viewport = Viewport(
                width: try number(viewportObject["width"], "viewport.width"),
                height: try number(viewportObject["height"], "viewport.height"))
            let layoutObject = try object(top["layout"], "layout")
            guard let kindName = layoutObject["kind"] as? String else {
                throw fail("layout.kind", "expected \"grid\" or \"list\", got \(layoutObject["kind"].map(describe) ?? "nothing")")
            }
            guard let kind = ScenarioLayout.Kind(rawValue: kindName) else {
                throw fail("layout.kind", "unknown kind \"\(kindName)\"; expected \"grid\" or \"list\"")
            }
            let itemCount = try integer(layoutObject["itemCount"], "layout.itemCount")
            let rowHeights = try layoutObject["rowHeights"].map { try self.rowHeights($0, itemCount: itemCount) }
            // With rows of their own heights, `itemHeight` is the typical row: their mean unless given.
            let typical = rowHeights.map { ScenarioLayout.list(itemCount: itemCount, rowHeights: $0).itemHeight }
            let layout = ScenarioLayout(
                kind: kind,
                itemCount: itemCount,
                itemWidth: kind == .grid ? try number(layoutObject["itemWidth"], "layout.itemWidth") : 0,
                itemHeight: try number(layoutObject["itemHeight"], "layout.itemHeight", default: typical),
                spacing: kind == .grid ? try number(layoutObject["spacing"], "layout.spacing", default: 10) : 0,
                sectionInset: kind == .grid ? try number(layoutObject["sectionInset"], "layout.sectionInset", default: 0) : 0,
                rowHeights: rowHeights)
            let motion: Scenario.Motion
            if let rawSamples = top["samples"] {
                guard let list = rawSamples as? [Any] else { throw fail("samples", "expected an array of [seconds, offset] pairs, got \(describe(rawSamples))") }
                motion = .samples(try list.enumerated().map { index, element in
                    guard let pair = element as? [Any], (2...4).contains(pair.count) else {
                        throw fail("samples[\(index)]", "expected [seconds, offset] or [seconds, offset, phase(, resting offset)], got \(describe(element))")
                    }
                    var sample = OffsetSample(time: try number(pair[0], "samples[\(index)][0]"), offset: try number(pair[1], "samples[\(index)][1]"))
                    if pair.count >= 3 {
                        guard let name = pair[2] as? String else {
                            throw fail("samples[\(index)][2]", "expected a phase name (touching, decelerating or idle), got \(describe(pair[2]))")
                        }
                        guard let phase = TracePhase(rawValue: name) else {
                            throw fail("samples[\(index)][2]", "unknown phase \"\(name)\"; expected touching, decelerating or idle")
                        }
                        sample.phase = phase
                    }
                    if pair.count == 4 { sample.restingOffset = try number(pair[3], "samples[\(index)][3]") }
                    return sample
                })
            } else if let rawGestures = top["gestures"] {
                guard let list = rawGestures as? [Any] else { throw fail("gestures", "expected an array of gestures, got \(describe(rawGestures))") }
                motion = .gestures(try list.enumerated().map { try gesture($1, "gestures[\($0)]") })
            } else {
                throw fail("samples", "is missing; a trace needs \"samples\" or \"gestures\"")
            }
            let name = (top["name"] as? String) ?? ((file as NSString).deletingPathExtension)
            var itemBytes: [Int]?
            if let raw = top["itemBytes"] {
                guard let list = raw as? [Any] else { throw fail("itemBytes", "expected an array of sizes in bytes, one per item, got \(describe(raw))") }
                itemBytes = try list.enumerated().map { try integer($1, "itemBytes[\($0)]") }
            }
            var bounces = false
            if let raw = top["bounces"] {
                let flag = try self.flag(raw, "bounces")
                guard !flag || motion.isGestures else {
                    throw fail("bounces", "applies to a trace of gestures; a trace of samples has no overscroll (its offsets lie in the content)")
                }
                bounces = flag
            }
            var selfSizing = false
            if let raw = layoutObject["selfSizing"] { selfSizing = try flag(raw, "layout.selfSizing") }
            return Scenario(name: name, layout: layout, viewport: viewport, motion: motion,
                            payloadBytes: try integer(top["payloadBytes"], "payloadBytes", default: 50_000), itemBytes: itemBytes,
                            bounces: bounces, selfSizing: selfSizing)
        }

        /// `layout.rowHeights`: an array of heights (one per item, checked with the layout), or a
        /// named profile, `{"profile": "feed", "seed": 7}`.
        func rowHeights(_ value: Any, itemCount: Int) throws -> RowHeights {
            if let list = value as? [Any] {
                return .perItem(try list.enumerated().map { try number($1, "layout.rowHeights[\($0)]") })
            }
            guard let fields = value as? [String: Any] else {
                throw fail("layout.rowHeights", "expected an array of heights in points, one per item, or a profile such as {\"profile\": \"feed\", \"seed\": 1}, got \(describe(value))")
            }
            if let unknown = fields.keys.sorted().first(where: { $0 != "profile" && $0 != "seed" }) {
                throw fail("layout.rowHeights.\(unknown)", "unknown field; a profile takes \"profile\" and \"seed\"")
            }
            guard let name = fields["profile"] as? String else {
                throw fail("layout.rowHeights.profile", "expected a profile name (\"feed\"), got \(fields["profile"].map(describe) ?? "nothing")")
            }
            guard name == "feed" else { throw fail("layout.rowHeights.profile", "unknown profile \"\(name)\"; expected \"feed\"") }
            let seed = try integer(fields["seed"], "layout.rowHeights.seed", default: 1)
            guard seed >= 0 else { throw fail("layout.rowHeights.seed", "\(seed) must be a whole number, at least 0") }
            return .feed(seed: UInt64(seed))
        }

        func gesture(_ value: Any, _ path: String) throws -> ScrollGesture {
            let object = try object(value, path)
            guard object.count == 1, let (key, body) = object.first else {
                throw fail(path, "expected an object with one key (\(Self.gestureNames)), got \(object.count) keys")
            }
            let fields = try self.object(body, "\(path).\(key)")
            switch key {
            case "drag": return .drag(speed: try number(fields["speed"], "\(path).drag.speed"), duration: try number(fields["duration"], "\(path).drag.duration"))
            case "fling":
                let velocity = try number(fields["velocity"], "\(path).fling.velocity")
                guard fields["for"] != nil else { return .fling(velocity: velocity) }
                return .flingFor(velocity: velocity, duration: try number(fields["for"], "\(path).fling.for"))
            case "jump": return .jump(item: try integer(fields["item"], "\(path).jump.item"))
            case "pause": return .pause(duration: try number(fields["duration"], "\(path).pause.duration"))
            case "animate":
                return .animate(item: try integer(fields["item"], "\(path).animate.item"),
                                duration: try number(fields["duration"], "\(path).animate.duration", default: ScrollGesture.defaultAnimationDuration))
            case "statusBarTap":
                guard fields.isEmpty else { throw fail("\(path).statusBarTap", "takes no fields; expected {}, got \(fields.keys.sorted())") }
                return .statusBarTap
            case "restore": return .restore(offset: try number(fields["offset"], "\(path).restore.offset"))
            case "insertAbove", "deleteAbove":
                let count = try integer(fields["count"], "\(path).\(key).count")
                let after = try fields["after"].map { try number($0, "\(path).\(key).after") }
                return key == "insertAbove" ? .insertAbove(count: count, after: after) : .deleteAbove(count: count, after: after)
            case "rotate":
                return .rotate(width: try number(fields["width"], "\(path).rotate.width"), height: try number(fields["height"], "\(path).rotate.height"))
            default: throw fail("\(path).\(key)", "unknown gesture \"\(key)\"; expected \(Self.gestureNames)")
            }
        }
    }
}
