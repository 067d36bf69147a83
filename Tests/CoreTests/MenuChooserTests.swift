import Campus
import Messages
import OrderCore
import Testing

@Suite("Menu choice")
struct MenuChooserTests {
    typealias Inputs = MenuChooser.Inputs

    /// Each rule wins when every rule before it has nothing to say, in the documented order:
    /// specific café → nearest near/immediate beacon → nearest café by location → last café → campus default.
    @Test("the first rule with an answer chooses", arguments: [
        ("preference beats everything", Inputs(preference: .cafe("munich-cafe"), nearestBeaconMajor: 2, nearestCafeByLocation: "tokyo-cafe", lastCafe: "london-cafe"),
         "munich-cafe", MenuRule.preferredCafe),
        ("beacon beats location and last café", Inputs(preference: .closestToMe, nearestBeaconMajor: 2, nearestCafeByLocation: "tokyo-cafe", lastCafe: "london-cafe"),
         "macs-coffee", .nearestBeacon),
        ("location beats last café", Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: "tokyo-cafe", lastCafe: "london-cafe"),
         "tokyo-cafe", .nearestByLocation),
        ("last café", Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: nil, lastCafe: "london-cafe"),
         "london-cafe", .lastCafe),
        ("nothing known", Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: nil, lastCafe: nil),
         "caffe-macs", .campusDefault),
        // Unknown answers fall through to the next rule, never to an error page.
        ("unknown preferred café", Inputs(preference: .cafe("closed-in-2019"), nearestBeaconMajor: 3, nearestCafeByLocation: "tokyo-cafe", lastCafe: nil),
         "parmer-lane-5", .nearestBeacon),
        ("unknown preferred café, nothing else", Inputs(preference: .cafe("closed-in-2019"), nearestBeaconMajor: nil, nearestCafeByLocation: nil, lastCafe: nil),
         "caffe-macs", .campusDefault),
        ("unknown beacon major", Inputs(preference: .closestToMe, nearestBeaconMajor: 99, nearestCafeByLocation: "tokyo-cafe", lastCafe: nil),
         "tokyo-cafe", .nearestByLocation),
        ("unknown café by location", Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: "atlantis", lastCafe: "munich-cafe"),
         "munich-cafe", .lastCafe),
        ("unknown last café", Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: nil, lastCafe: "atlantis"),
         "caffe-macs", .campusDefault),
    ] as [(String, Inputs, String, MenuRule)])
    func rules(label: String, inputs: Inputs, cafe: String, rule: MenuRule) throws {
        let catalog = try DemoCampus.load()
        let choice = MenuChooser.choose(inputs, catalog: catalog)
        #expect(choice.cafe.id == cafe, "\(label)")
        #expect(choice.rule == rule, "\(label)")
    }

    @Test("the campus default is the catalog's default café")
    func campusDefault() throws {
        var catalog = try DemoCampus.load()
        catalog.defaultCafe = "london-cafe"
        let choice = MenuChooser.choose(Inputs(preference: .closestToMe, nearestBeaconMajor: nil, nearestCafeByLocation: nil, lastCafe: nil), catalog: catalog)
        #expect(choice.cafe.id == "london-cafe")
        #expect(choice.rule == .campusDefault)
    }

    @Test("each beacon major chooses its own café", arguments: [(1, "caffe-macs"), (2, "macs-coffee"), (3, "parmer-lane-5"), (6, "tokyo-cafe")])
    func majors(major: Int, cafe: String) throws {
        let choice = MenuChooser.choose(Inputs(preference: .closestToMe, nearestBeaconMajor: major, nearestCafeByLocation: nil, lastCafe: nil),
                                        catalog: try DemoCampus.load())
        #expect(choice.cafe.id == cafe)
        #expect(choice.rule == .nearestBeacon)
    }
}
