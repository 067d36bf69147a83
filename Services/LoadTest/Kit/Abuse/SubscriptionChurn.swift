import Foundation
import Policy
import ServiceRuntime
import ZeroMQ

/// `subscriptions`: an operator's SUB socket subscribing distinct long prefixes and dropping
/// each again once `held` newer ones are held (issue 28: 10,000 prefixes of 4,000 bytes, never
/// more than 50 at once, stopped all forwarding for 27 s). When the prefixes run out before the
/// attack ends, it waits; the held ones are dropped when it stops.
final class SubscriptionChurn: AbuseAttack {
    let name = "subscriptions"
    private let endpoint: String
    private let prefixes: Int
    private let prefixBytes: Int
    private let held: Int
    private let counters = AttackCounters()
    private var runID = ""

    init(settings: AbuseSettings) {
        endpoint = settings.busSub
        prefixes = settings.churnPrefixes
        prefixBytes = settings.churnPrefixBytes
        held = settings.churnHeld
    }

    var summary: String { "an operator subscribing \(prefixes) distinct \(prefixBytes)-byte prefixes at \(endpoint), \(held) held at once" }

    private var keyName: String { "\(runID)-churner" }

    func keys(runID: String) -> [LoadSecurity.Mint] {
        self.runID = runID
        return [LoadSecurity.Mint(name: keyName, role: .operator)]
    }

    /// The `index`th prefix: distinct from every other and from every topic, `bytes` long.
    static func prefix(_ index: Int, runID: String, bytes: Int) -> [UInt8] {
        let head = Array("zz.abuse.\(runID).\(index).".utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: max(0, bytes - head.count))
    }

    func start(context: Context, keys: AttackKeys) throws {
        let (server, address) = PeerEndpoint.split(endpoint, defaultName: "bus")
        let curve = keys.keys(keyName, server: server)
        counters.spawn("subscription churn") { [counters, prefixes, prefixBytes, held, runID] in
            do {
                let socket = try Socket(context, .sub)
                defer { socket.close() }
                try socket.setLinger(milliseconds: 0)
                if let curve { try socket.setCurveClient(serverKey: curve.serverKey, publicKey: curve.keyPair.publicKey, secretKey: curve.keyPair.secretKey) }
                try socket.connect(address)
                var index = 0
                while !counters.isStopped {
                    guard index < prefixes else {
                        Thread.sleep(forTimeInterval: 0.05)
                        continue
                    }
                    try socket.subscribe(bytes: Self.prefix(index, runID: runID, bytes: prefixBytes))
                    counters.add("subscribed")
                    if index >= held {
                        try socket.unsubscribe(bytes: Self.prefix(index - held, runID: runID, bytes: prefixBytes))
                        counters.add("unsubscribed")
                    }
                    index += 1
                    // Nothing should arrive (no topic starts with these); read it if it does.
                    while let _ = try socket.tryReceiveMultipart() { counters.add("messages") }
                }
                for old in max(0, index - held)..<index { try socket.unsubscribe(bytes: Self.prefix(old, runID: runID, bytes: prefixBytes)) }
            } catch {
                counters.add("socket.failed")
            }
        }
    }

    func stop() -> [(String, Int)] { counters.stopAndWait() }
}
