import Foundation
import Messages
import ServiceRuntime
import TestSupport
import Testing
import ZeroMQ

/// The campus walk replayed through the running platform with `cafectl walk`, watched with
/// `cafectl tail region.`: the same events as the walk through the engines in process
/// (`CampusWalkTests`), with every time constant divided by the replay speed.
@Suite("The campus walk through the platform")
struct WalkReplayTests {
    static let speed = 20.0

    struct TailLine: Decodable {
        var topic: String
        var envelope: Envelope
    }

    @Test("cafectl walk at 20× shows on cafectl tail region. exactly the walk's events, none flapping, no coordinates")
    func replay() throws {
        let platform = try Platform()
        defer { platform.stop() }
        let s = Self.speed
        platform.extraArguments["beacon-ingest"] = ["--smoothing-window-seconds", "\(10 / s)", "--evidence-seconds", "\(40 / s)"]
        platform.extraArguments["region-monitor"] = ["--beacon-exit-seconds", "\(30 / s)", "--nearest-freshness-seconds", "\(10 / s)",
                                                     "--tick-seconds", "\(0.5 / s)"]
        try platform.startAll()
        let context = try Context()
        let before = try busSubscriptionChanges(platform, context: context)
        let tail = try TailProcess(platform, ["region."])
        defer { tail.stop() }
        _ = try eventually("the tail's subscription reaches the bus") { try busSubscriptionChanges(platform, context: context) > before ? true : nil }

        let walk = try platform.cafectl(["walk", "--device", "walker-1", "--seed", "1", "--speed", "\(s)", "--campus", platform.campus])
        #expect(walk.status == 0, "\(walk.err)")

        func observed() -> [String: [String]] {
            let text = (try? String(contentsOf: tail.out, encoding: .utf8)) ?? ""
            var seen = Set<String>()
            var result: [String: [String]] = [:]
            for line in text.split(separator: "\n") {
                guard let parsed = try? JSONDecoder().decode(TailLine.self, from: Data(line.utf8)),
                      seen.insert("\(parsed.envelope.source)/\(parsed.envelope.stream)/\(parsed.envelope.seq)").inserted
                else { continue }
                switch parsed.envelope.body {
                case .region(let e) where e.deviceId == "walker-1":
                    result[e.identifier, default: []].append(e.state.rawValue + (e.refinement.map { " \($0.major)/\($0.minor)" } ?? ""))
                case .nearest(let n) where n.deviceId == "walker-1":
                    result["nearest", default: []].append(CampusWalkExpectation.describe(n))
                default: continue
                }
            }
            return result
        }
        // The last events (the areas left, the coffee station's exit) come a few walk seconds after the phone stops reporting.
        _ = try eventually("every condition's last event on the tail", timeout: 15) { observed() == CampusWalkExpectation.perCondition ? true : nil }
        _ = tail.interrupt()
        #expect(observed() == CampusWalkExpectation.perCondition)
        let text = (try? String(contentsOf: tail.out, encoding: .utf8)) ?? ""
        #expect(!text.contains("latitude") && !text.contains("longitude"))
    }
}
