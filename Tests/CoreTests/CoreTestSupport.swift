import Campus
import Foundation
import Messages

/// A fixed moment the tests count from (2025-06-15T15:06:40Z); every core takes time as a value.
let t0 = Timestamp(milliseconds: 1_750_000_000_000)

extension Timestamp {
    /// `t0` moved by `seconds`.
    static func at(_ seconds: Double) -> Timestamp { t0.adding(seconds: seconds) }
}

/// The company's beacon UUID in the demo campus (deploy/campus.json).
let campusUUID = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"

/// The demo campus, read once from deploy/campus.json next to the package.
enum DemoCampus {
    static let path: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/campus.json").path

    static func load() throws -> CampusCatalog { try CampusCatalog.load(path: path) }
}

/// A seeded linear congruential generator (Knuth's MMIX constants): the same noise on every run
/// and platform, unlike `random()`.
struct LCG {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }

    /// A whole number in `range`, uniformly.
    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
}

/// Runs `body` and returns the stable code of the `ServiceError` it throws (nil when it returns).
func errorCode<T>(_ body: () throws(ServiceError) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.code
    }
}
