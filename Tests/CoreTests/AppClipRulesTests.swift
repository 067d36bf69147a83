import Campus
import Messages
import OrderCore
import Testing

@Suite("App Clip rules")
struct AppClipRulesTests {
    typealias F = OrderFixtures

    @Test("what is checked before region-monitor is asked", arguments: [
        (F.clip(), nil as String?),
        (F.clip("https://clip.campus.example/caffe-macs/pickup-shelf", .nfc), nil),
        (F.clip(F.macsCode, .qrCode, acquiredAt: .at(60)), nil),
        (F.clip("https://clip.campus.example/nowhere"), "appClip.doesNotMatch"),
        (F.clip("https://clip.campus.example/parmer-lane-5/counter"), "appClip.doesNotMatch"),
        (F.clip(F.macsCode, .safari), "appClip.disallowed"),
        (F.clip(F.macsCode, .spotlight), "appClip.disallowed"),
        (F.clip(F.macsCode, .appClipCode, acquiredAt: .at(60.001)), "request.invalidField"),
    ])
    func check(clip: ClipLaunch, code: String?) throws {
        let catalog = try DemoCampus.load()
        let cafe = try #require(catalog.cafe("caffe-macs"))
        #expect(errorCode { () throws(ServiceError) in try AppClipRules.check(clip, cafe: cafe, catalog: catalog, now: t0) } == code)
    }

    @Test("region-monitor's answer", arguments: [
        (LocationConfirmation.Result.yes, LocationConfirmation.Reason?.none, nil as String?, nil as String?),
        (.no, nil, "appClip.notInRegion", nil),
        (.disallowed, .approximateOnly, "appClip.disallowed", "approximateOnly"),
        (.disallowed, nil, "appClip.disallowed", "unknown"),
    ])
    func verdict(result: LocationConfirmation.Result, reason: LocationConfirmation.Reason?, code: String?, detail: String?) throws {
        let cafe = try #require(try DemoCampus.load().cafe("caffe-macs"))
        let answer = LocationConfirmation(deviceId: "p", code: F.macsCode, result: result, reason: reason)
        let error = refusal { () throws(ServiceError) in try AppClipRules.verdict(answer, cafe: cafe) }
        #expect(error?.code == code && error?.details?["reason"] == detail)
    }

    @Test("region-monitor not answering may be tried again")
    func unavailable() {
        let error = AppClipRules.unavailable(ServiceError(.clientTimeout, "no reply"))
        #expect(error.code == "order.confirmationUnavailable" && error.message.contains("try again"))
    }
}
