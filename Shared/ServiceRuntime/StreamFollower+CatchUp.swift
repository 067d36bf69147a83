import Foundation
import Messages
import SQLite

/// Catching up (the Clone pattern's second half): a heartbeat ahead of the cursor or a gap asks
/// the publisher's `replay`; asked inside an open transaction, the request waits for its commit.
/// A publisher that started over (a new epoch) is followed from its seq 1 again.
extension StreamFollower {
    /// A publisher's heartbeat: remember where it answers replay, catch up any stream we are behind on.
    public func observe(_ heartbeat: Heartbeat, source: String) {
        // Started over: a new epoch, or a last seq below what we already applied (which only a
        // publisher that lost its history can announce; this catches it even when we never
        // heard the old epoch).
        let newEpoch = !heartbeat.epoch.isEmpty && epochs[source] != nil && epochs[source] != heartbeat.epoch
        let wentBack = durableStreams.contains { cursor(source: source, stream: $0) > (heartbeat.streams[$0] ?? 0) }
        if newEpoch || wentBack || (epochs[source] == nil && !heartbeat.epoch.isEmpty) {
            adopt(epoch: heartbeat.epoch, of: source, reset: newEpoch || wentBack)
        }
        if endpoints[source] != heartbeat.replayEndpoint {
            endpoints[source] = heartbeat.replayEndpoint
            clients[source]?.close()
            clients[source] = nil
        }
        let now = Reactor.monotonic()
        // Another shard's streams are neither followed nor counted as behind.
        let followed = heartbeat.streams.filter { durableStreams.contains($0.key) && !Self.otherShard(heartbeat.shard, stream: $0.key, prefixes: prefixes) }
        for (stream, last) in followed {
            let k = key(source, stream)
            if last > cursor(source: source, stream: stream) {
                if behindSince[k] == nil { behindSince[k] = now }
            } else {
                behindSince[k] = nil
            }
        }
        for (stream, last) in followed where last > cursor(source: source, stream: stream) {
            if db.inTransaction {
                schedule(source: source, stream: stream, through: last)
            } else {
                catchUp(source: source, stream: stream, through: last)
            }
        }
        retryCollisions(of: source)
    }

    /// Whether a publisher of `shard` publishes `stream` only on topics this consumer does not
    /// subscribe to: every prefix of the stream names a shard (`device.s0.`), none this one. Its
    /// events would only move a cursor, so it is not caught up on (nor counted as behind).
    /// A `shard` that names no shard (not `s<digits>`) is ignored: the stream is followed.
    public static func otherShard(_ shard: String?, stream: String, prefixes: [String]) -> Bool {
        func namesShard(_ part: Substring) -> Bool { part.count > 1 && part.first == "s" && part.dropFirst().allSatisfy { $0.isASCII && $0.isNumber } }
        guard let shard, namesShard(Substring(shard)) else { return false }
        let parts = prefixes.map { $0.split(separator: ".", omittingEmptySubsequences: false) }.filter { $0.first.map(String.init) == stream }
        guard !parts.isEmpty else { return false }
        guard parts.allSatisfy({ $0.count > 1 && namesShard($0[1]) }) else { return false }
        return !parts.contains { $0[1] == Substring(shard) }
    }

    /// Whether a catch-up waits for the open transaction to end.
    public var hasPendingCatchUps: Bool { !pendingCatchUps.isEmpty || !pendingCollisions.isEmpty }

    func schedule(source: String, stream: String, through: UInt64) {
        if let index = pendingCatchUps.firstIndex(where: { $0.source == source && $0.stream == stream }) {
            pendingCatchUps[index].through = max(pendingCatchUps[index].through, through)
        } else {
            pendingCatchUps.append((source, stream, through))
        }
    }

    /// Runs the catch-ups asked for inside the last transaction, then applies the held events that
    /// are next in their streams. One that still does not fit is dropped: the gap stays, and the
    /// publisher's next heartbeat asks for it again.
    public func runPendingCatchUps() {
        precondition(!db.inTransaction, "a catch-up is a blocking request: never inside an open transaction")
        let catchUps = pendingCatchUps, events = held, collisions = pendingCollisions
        pendingCatchUps.removeAll()
        held.removeAll()
        pendingCollisions.removeAll()
        for request in catchUps { catchUp(source: request.source, stream: request.stream, through: request.through) }
        for event in events {
            let current = cursor(source: event.envelope.source, stream: event.envelope.stream)
            if event.envelope.seq <= current {
                continue
            } else if event.envelope.seq == current + 1 {
                _ = applyInOrder(topic: event.topic, envelope: event.envelope, raw: event.raw)
            }
        }
        for event in collisions { settleCollision(topic: event.topic, envelope: event.envelope, raw: event.raw) }
    }

    /// A publisher that started over from an empty database counts its seq from 1 again, so our
    /// cursors for it mean nothing now: reset them, and the catch-up that follows replays its new
    /// history. Otherwise just remember its epoch.
    func adopt(epoch: String, of source: String, reset: Bool) {
        do {
            try db.transaction {
                if reset { try db.run("DELETE FROM consumer_cursors WHERE source = ?", source) }
                if !epoch.isEmpty {
                    try db.run("INSERT INTO consumer_epochs (source, epoch) VALUES (?, ?) ON CONFLICT(source) DO UPDATE SET epoch = excluded.epoch", source, epoch)
                }
            }
        } catch {
            logger.error("could not record a publisher's restart", ["source": source, "error": "\(error)"])
            return
        }
        if reset {
            logger.warning("publisher started over; cursors reset", ["source": source, "epoch": epoch])
            for k in cursors.keys where k.hasPrefix(source + "\u{1}") { setCursor(k, nil) }
        }
        if !epoch.isEmpty {
            if db.inTransaction {
                let old = epochs[source]
                undo.append { [unowned self] in self.epochs[source] = old }
            }
            epochs[source] = epoch
        }
    }

    /// Replays `stream` from the publisher until our cursor reaches `through` or the publisher
    /// has nothing more. Failures are logged; the next heartbeat tries again.
    public func catchUp(source: String, stream: String, through target: UInt64) {
        guard let endpoint = endpoints[source], let client = replayClient(source, stream: stream) else { return }
        while cursor(source: source, stream: stream) < target {
            if shouldStop() { return }
            let from = cursor(source: source, stream: stream) + 1
            let reply: ReplayReply
            do {
                reply = try client.call(Op.replay, ReplayRequest(stream: stream, fromSeq: from, limit: 500), as: ReplayReply.self)
            } catch {
                logger.warning("replay failed", ["source": source, "stream": stream, "endpoint": endpoint, "error": "\(error)"])
                return
            }
            if reply.events.isEmpty { return }
            var applied = 0
            // A page in one transaction (a savepoint per event): one commit, not one per event. It
            // applies strictly in order and stops at the first event the storage could not take;
            // a failed commit undoes the page, cursors included.
            do {
                try db.transaction {
                    for event in reply.events where event.envelope.seq > cursor(source: source, stream: stream) {
                        guard event.envelope.seq == cursor(source: source, stream: stream) + 1 else { break }
                        // The publisher's own record, and still only what its stream may carry.
                        if let error = origins?.fromReplay(event, source: source, stream: stream) {
                            deadLetter(event.topic, event.envelope, Wire.encode(event.envelope), error)
                            break
                        }
                        if applyInOrder(topic: event.topic, envelope: event.envelope, raw: Wire.encode(event.envelope)) == .failed {
                            throw storageFailure ?? SQLiteError(code: 10, message: "storage failed", context: "replay")
                        }
                        applied += 1
                    }
                }
            } catch let error as SQLiteError where error.isStorageFailure {
                storageFailure = error
                return
            } catch {
                return
            }
            // Nothing applied: stop; the next heartbeat tries again.
            if cursor(source: source, stream: stream) < from { return }
            replayedCount += applied
            logger.info("caught up by replay", ["source": source, "stream": stream, "events": "\(applied)", "cursor": "\(cursor(source: source, stream: stream))"])
        }
    }

    /// The request client for `source`'s replay endpoint (learnt from its heartbeat), made once.
    func replayClient(_ source: String, stream: String) -> RequestClient? {
        guard let endpoint = endpoints[source] else { return nil }
        if let existing = clients[source] { return existing }
        do {
            let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 1_000, curve: try replayKeys(source))
            clients[source] = client
            return client
        } catch {
            logger.warning("replay impossible", ["source": source, "stream": stream, "endpoint": endpoint, "error": "\(error)"])
            return nil
        }
    }
}
