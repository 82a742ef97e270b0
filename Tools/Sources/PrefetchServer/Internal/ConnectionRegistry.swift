import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connections a server has open: counted against its limit, made room for, and closed by
/// force when it stops.
///
/// Each connection's ``ConnectionGuard`` asks to be admitted when it becomes active, tells the
/// registry while the connection keeps the server waiting for a request (``setWaiting(_:since:)``),
/// and leaves when it closes. At the limit a new connection takes the place of the connection that
/// has kept the server waiting longest, if that one has waited at least ``evictionAge``; otherwise
/// it is refused. Both are logged once per spell at the limit, with the counts.
final class ConnectionRegistry: Sendable {
    /// One open connection, and since when it has kept the server waiting for a request (nil while
    /// the server answers it).
    private struct Entry {
        let channel: any Channel
        let backlog: OutboundBacklog
        var waitingSince: NIODeadline?
        /// The request it has begun (its head arrived), if any.
        var path: String?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var peak = 0
        var refused = 0
        var evicted = 0
        /// At the limit since a connection was last refused or made room for, and those counts then.
        var spell: (refused: Int, evicted: Int)?
        var closed = false
    }

    /// What a new connection gets.
    enum Admission: Equatable {
        /// Admitted; `open` connections are open with it.
        case admitted(open: Int)
        /// Admitted in the place of a connection that had kept the server waiting too long (closed
        /// here), which had begun a request for `evictedPath`, or none.
        case admittedEvicting(open: Int, evictedPath: String?)
        /// Refused: `open` connections are open, none waiting long enough to make room.
        case refused(open: Int)
    }

    /// The most connections open at once.
    let limit: Int
    /// How long a connection must have kept the server waiting before a new one may take its place.
    let evictionAge: Duration
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(limit: Int, evictionAge: Duration, logger: Logger) {
        self.limit = max(1, limit)
        self.evictionAge = evictionAge
        self.logger = logger
    }

    /// The connections open now.
    var openCount: Int { state.withLockedValue { $0.entries.count } }
    /// The most connections that were open at once.
    var peakCount: Int { state.withLockedValue { $0.peak } }
    /// The connections refused so far.
    var refusedCount: Int { state.withLockedValue { $0.refused } }
    /// The connections closed so far to make room for a new one.
    var evictedCount: Int { state.withLockedValue { $0.evicted } }

    /// Admits `channel` (waiting for its first request since `now`), makes room for it, or refuses it.
    ///
    /// The connection it makes room for is out of the count at once, and closed here.
    func admit(_ channel: any Channel, backlog: OutboundBacklog, now: NIODeadline = .now()) -> Admission {
        let limit = limit, evictionAge = evictionAge, age = TimeAmount(evictionAge)
        let (admission, victim, startsSpell) = state.withLockedValue { s -> (Admission, (any Channel)?, Bool) in
            if s.closed {
                s.refused += 1
                return (.refused(open: s.entries.count), nil, false)
            }
            let id = ObjectIdentifier(channel)
            if s.entries.count < limit {
                s.entries[id] = Entry(channel: channel, backlog: backlog, waitingSince: now)
                s.peak = max(s.peak, s.entries.count)
                return (.admitted(open: s.entries.count), nil, false)
            }
            let startsSpell = s.spell == nil
            if startsSpell { s.spell = (s.refused, s.evicted) }
            let oldest = s.entries
                .compactMap { key, entry in entry.waitingSince.map { (key, $0) } }
                .filter { $0.1 + age <= now }
                .min { $0.1 < $1.1 }
            guard let (victimID, _) = oldest, let victim = s.entries.removeValue(forKey: victimID) else {
                s.refused += 1
                return (.refused(open: s.entries.count), nil, startsSpell)
            }
            s.evicted += 1
            s.entries[id] = Entry(channel: channel, backlog: backlog, waitingSince: now)
            return (.admittedEvicting(open: s.entries.count, evictedPath: victim.path), victim.channel, startsSpell)
        }
        if startsSpell {
            logger.notice("connection limit reached: \(limit) connections open; a new one takes the place of one that has kept the server waiting for its request at least \(evictionAge), or is refused (503)",
                          metadata: ["open": "\(limit)", "limit": "\(limit)"])
        }
        victim?.close(promise: nil)
        return admission
    }

    /// The backlog of `channel`'s responses, if it is open.
    func backlog(for channel: any Channel) -> OutboundBacklog? {
        state.withLockedValue { $0.entries[ObjectIdentifier(channel)]?.backlog }
    }

    /// Records that `channel` has kept the server waiting for a request since `since`, or (nil)
    /// that the server is answering it; `path` is the request it has begun, if any.
    func setWaiting(_ channel: any Channel, since: NIODeadline?, path: String?) {
        state.withLockedValue { s in
            let id = ObjectIdentifier(channel)
            guard s.entries[id] != nil else { return }
            s.entries[id]?.waitingSince = since
            s.entries[id]?.path = path
        }
    }

    /// Counts `channel` out (it closed); nothing if it was not counted (refused, or made room for).
    func remove(_ channel: any Channel) {
        let limit = limit
        let ended = state.withLockedValue { s -> (open: Int, refused: Int, evicted: Int)? in
            guard s.entries.removeValue(forKey: ObjectIdentifier(channel)) != nil,
                  let spell = s.spell, s.entries.count < limit else { return nil }
            s.spell = nil
            return (s.entries.count, s.refused - spell.refused, s.evicted - spell.evicted)
        }
        if let ended {
            logger.notice("below the connection limit again: \(ended.open) connections open; \(ended.refused) refused and \(ended.evicted) closed to make room meanwhile",
                          metadata: ["open": "\(ended.open)", "limit": "\(limit)", "refused": "\(ended.refused)", "evicted": "\(ended.evicted)"])
        }
    }

    /// Refuses every connection from now on and closes every open one; returns how many it closed.
    @discardableResult
    func closeAll() -> Int {
        let channels = state.withLockedValue { s -> [any Channel] in
            s.closed = true
            defer { s.entries.removeAll() }
            return s.entries.values.map(\.channel)
        }
        for channel in channels { channel.close(promise: nil) }
        return channels.count
    }
}

/// How many connections a server may hold: the configured limit, lowered to leave descriptors for
/// everything else when the process's descriptor limit is low.
enum ConnectionLimit {
    /// The limit for `configured` connections in a process that may open `descriptorLimit`
    /// descriptors (nil: no limit): it keeps a quarter of them, and at least 64, for the listener,
    /// the logs, the event loops, and the connections being accepted or refused; at least 1.
    ///
    /// A server that runs out of descriptors stops accepting for a second (NIO's accept backoff),
    /// so every client waits; one at its connection limit refuses or makes room at once.
    static func effective(configured: Int, descriptorLimit: Int?) -> Int {
        guard let descriptorLimit else { return configured }
        let reserve = max(64, descriptorLimit / 4)
        return max(1, min(configured, descriptorLimit - reserve))
    }

    /// The soft limit on this process's open descriptors (`RLIMIT_NOFILE`), or nil when there is
    /// none or it cannot be read.
    static func processDescriptorLimit() -> Int? {
        var limit = rlimit()
        #if canImport(Glibc)
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        #else
        guard getrlimit(RLIMIT_NOFILE, &limit) == 0 else { return nil }
        #endif
        guard limit.rlim_cur < rlim_t(Int.max) else { return nil }   // RLIM_INFINITY is the largest value
        return Int(limit.rlim_cur)
    }
}
