import Messages
import RegionMonitorCore
import Testing

@Suite("Region engine: last sightings handed to storage in bounded walks")
struct RegionSightingSaveTests {
    /// 50 phones, each sighted at the salad bar and again a second later: every one has a
    /// satisfied record whose last sighting (the second) is unsaved.
    static func engineWithPhones(_ count: Int) -> RegionEngine {
        let engine = RegionEngineTests.engine()
        for i in 0..<count {
            let effects = engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, device: "phone-\(i)", at: 0))
            precondition(!effects.events.isEmpty, "phone-\(i) entered")
            precondition(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, device: "phone-\(i)", at: 1)).events.isEmpty)
        }
        return engine
    }

    @Test("a sighting whose event stored it, or one no later than the last, leaves nothing to save; a later one does")
    func eventStoresItsSighting() {
        let engine = RegionEngineTests.engine()
        // A first-seen phone's report: its café's event carries the first sighting's time as the
        // record's last matching sighting; the report's other beacons, at the same time, add nothing.
        #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, at: 10)).events.map(\.state) == [.satisfied])
        #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsGrill, at: 10)).events.isEmpty)
        #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, at: 9.5)).events.isEmpty, "late, and older")
        for _ in 0..<2 { #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsGrill, at: 10)).events.isEmpty) }
        #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, at: 9.5)).events.isEmpty)
        #expect(engine.sightingTimesToSave().isEmpty, "the event stored the last matching sighting")
        #expect(engine.sightingTimesToSave().isEmpty)

        // Seen a second later: that sighting is saved (deferred once while the phone is still seen).
        #expect(engine.sighting(RegionEngineTests.sighting(RegionEngineTests.macsSalad, at: 11)).events.isEmpty)
        #expect(engine.sightingTimesToSave().isEmpty, "still seen, its unsaved sightings span nothing yet")
        let times = engine.sightingTimesToSave()
        #expect(times.map(\.identifier) == ["macs"])
        #expect(times.map(\.lastSeen) == [.at(11)])
        #expect(engine.sightingTimesToSave().isEmpty, "nothing left unsaved")
    }

    @Test("a call looks at no more than its visits: the 50 phones are deferred in five calls of 10, then saved 10 a call")
    func boundedWalk() {
        let engine = Self.engineWithPhones(50)
        // First round: each phone was seen since the last save and its sightings span nothing yet.
        for call in 1...5 {
            #expect(engine.sightingTimesToSave(limit: 100, visits: 10).isEmpty, "call \(call) looked at 10 phones still being seen")
        }
        // Second round: none was seen since, so each is saved when the walk reaches it.
        var saved: Set<String> = []
        for call in 6...10 {
            let times = engine.sightingTimesToSave(limit: 100, visits: 10)
            #expect(times.count == 10, "call \(call) saved the 10 phones it looked at")
            saved.formUnion(times.map(\.deviceId))
        }
        #expect(saved == Set((0..<50).map { "phone-\($0)" }))
        #expect(engine.sightingTimesToSave(limit: 100, visits: 10).isEmpty, "nothing left unsaved")
    }

    @Test("without a visit bound a call walks every phone, and the limit still stops it where the next call resumes")
    func unboundedWalkAndLimit() {
        let engine = Self.engineWithPhones(50)
        #expect(engine.sightingTimesToSave(limit: 100).isEmpty, "one call deferred all 50")
        let first = engine.sightingTimesToSave(limit: 30)
        let rest = engine.sightingTimesToSave(limit: 30)
        #expect(first.count == 30 && rest.count == 20)
        #expect(Set(first.map(\.deviceId)).isDisjoint(with: rest.map(\.deviceId)))
    }
}
