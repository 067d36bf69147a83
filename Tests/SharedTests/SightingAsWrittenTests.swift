import Foundation
@testable import Messages
import Testing

/// A sighting in the layout beacon-ingest writes is read by matching that layout; every other
/// layout goes the general way, to the same result Foundation gives.
struct SightingAsWrittenTests {
    private static func sightings() -> [Sighting] {
        SightingCodecTests.samples().compactMap { envelope in
            if case .sighting(let s) = envelope.body { return s }
            return nil
        }
    }

    private func asWritten(_ text: [UInt8]) -> (Sighting?, position: Int) {
        text.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            let sighting = Sighting.readAsWritten(from: &scanner)
            return (sighting, scanner.position)
        }
    }

    private func general(_ text: [UInt8]) -> Sighting? {
        text.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            guard let sighting = Sighting.read(from: &scanner), scanner.atEnd else { return nil }
            return sighting
        }
    }

    @Test("every sample as appendJSON writes it (escaped names, with and without the evidence) is read by its layout, whole")
    func writtenLayout() throws {
        for sighting in Self.sightings() {
            var text: [UInt8] = []
            sighting.appendJSON(to: &text)
            let (read, position) = asWritten(text)
            #expect(read == sighting)
            #expect(position == text.count)
            #expect(try JSONDecoder().decode(Sighting.self, from: Data(text)) == sighting)
        }
    }

    @Test("another layout leaves the scanner where it was, and the general reader gives what Foundation gives", arguments: [
        // Keys in another order.
        #"{"beacon":{"major":1,"minor":2,"uuid":"8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"},"accuracy":1.41,"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60}"#,
        // A space before a name (one before a value is read as the general reader reads it).
        #"{"accuracy":1.41, "beacon":{"major":1,"minor":2,"uuid":"8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60}"#,
        // A member the layout does not have.
        #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60,"extra":true}"#,
        // A proximity written with an escape.
        #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"n\u0065ar","rssi":-60}"#,
    ])
    func otherLayouts(_ text: String) throws {
        let bytes = Array(text.utf8)
        let (read, position) = asWritten(bytes)
        #expect(read == nil)
        #expect(position == 0)
        #expect(general(bytes) == (try JSONDecoder().decode(Sighting.self, from: Data(bytes))))
    }

    @Test("the layout with a value out of range, a name given twice or a proximity Core Location does not have is not read by it")
    func refusedInLayout() {
        let uuid = "8A4F6C2E-3B1D-4E7A-9C5F-2D8E1B7A6C30"
        for text in [
            #"{"accuracy":1.41,"beacon":{"major":70000,"minor":2,"uuid":"\#(uuid)"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60}"#,
            #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"\#(uuid)"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":5}"#,
            #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"\#(uuid)"},"deviceId":"p1","meanRssi":-60.5,"measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60}"#,
            #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"\#(uuid)"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"close","rssi":-60}"#,
            #"{"accuracy":1.41,"beacon":{"major":1,"minor":2,"uuid":"\#(uuid)"},"deviceId":"p1","measuredPower":-59,"observedAt":"2026-11-27T10:00:00.000Z","proximity":"near","rssi":-60,"rssi":-61}"#,
        ] {
            let bytes = Array(text.utf8)
            let (read, position) = asWritten(bytes)
            #expect(read == nil, "\(text)")
            #expect(position == 0)
            // The general reader refuses each too (Foundation then words the error).
            #expect(general(bytes) == nil, "\(text)")
        }
    }
}
