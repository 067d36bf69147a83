import Foundation
import Messages
import NotifyCore
@testable import NotifyServer
import XCTest

/// The webhook channel's signature and status classification, against the Standard Webhooks
/// reference vector (the one its libraries test with; `openssl dgst -mac HMAC` agrees).
final class WebhookSignatureTests: XCTestCase {
    func testStandardWebhooksVector() throws {
        let signer = try XCTUnwrap(WebhookSignature(encoded: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let header = signer.header(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        XCTAssertEqual(header, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    func testAnotherIdOrBodySignsDifferently() throws {
        let signer = try XCTUnwrap(WebhookSignature(encoded: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let one = signer.header(id: "a", timestamp: 1, body: body)
        XCTAssertEqual(one, signer.header(id: "a", timestamp: 1, body: body))
        XCTAssertNotEqual(one, signer.header(id: "b", timestamp: 1, body: body))
        XCTAssertNotEqual(one, signer.header(id: "a", timestamp: 2, body: body))
        XCTAssertNotEqual(one, signer.header(id: "a", timestamp: 1, body: body + [0x20]))
    }

    func testBadSecretsAreRefused() {
        XCTAssertNil(WebhookSignature(encoded: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        XCTAssertNil(WebhookSignature(encoded: "whsec_!!!"))
        XCTAssertNil(WebhookSignature(encoded: "whsec_"))
        XCTAssertNil(WebhookSignature(secret: []))
        XCTAssertNil(WebhookSignature(secret: [UInt8](repeating: 1, count: WebhookSignature.maxSecretBytes + 1)))
    }

    func testStatusesMapToPushOutcomes() {
        XCTAssertEqual(WebhookAnswer.classify(status: 200), .accepted)
        XCTAssertEqual(WebhookAnswer.classify(status: 204), .accepted)
        XCTAssertEqual(WebhookAnswer.classify(status: 410), .unregistered(since: nil))
        XCTAssertEqual(WebhookAnswer.classify(status: 429), .throttled(reason: "TooManyRequests"))
        XCTAssertEqual(WebhookAnswer.classify(status: 503), .transient(reason: "503"))
        XCTAssertEqual(WebhookAnswer.classify(status: 0), .transient(reason: "no answer"))
        XCTAssertEqual(WebhookAnswer.classify(status: 404), .refused(status: 404, reason: "refused"))
    }
    func testDeliveryKeepsItsIdAcrossAttemptsAndSignsWhatItSends() throws {
        let signer = try XCTUnwrap(WebhookSignature(encoded: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let notification = DeviceNotification(notificationId: "ntf_1", deviceId: "dev_1", kind: .orderReady, collapseId: "ord_1", title: "Ready",
                                              body: "Your latte is ready", language: "en", orderId: "ord_1", expiresAt: Timestamp(milliseconds: 9_000_000),
                                              createdAt: Timestamp(milliseconds: 1_000), undeliverableReason: nil)
        let first = WebhookDelivery(notification: notification, recipient: "fcm:abc", signer: signer, now: Timestamp(milliseconds: 1_614_265_330_000))
        let again = WebhookDelivery(notification: notification, signer: signer, now: Timestamp(milliseconds: 1_614_265_390_000))
        let header = { (d: WebhookDelivery, n: String) in d.headers.first { $0.name == n }?.value }
        XCTAssertEqual(header(first, "webhook-id"), "ntf_1")
        XCTAssertEqual(header(again, "webhook-id"), "ntf_1")
        XCTAssertEqual(header(first, "webhook-timestamp"), "1614265330")
        XCTAssertEqual(header(first, "webhook-signature"), signer.header(id: "ntf_1", timestamp: 1_614_265_330, body: first.body))
        XCTAssertNotEqual(header(first, "webhook-signature"), header(again, "webhook-signature"))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any])
        XCTAssertEqual(object["id"] as? String, "ntf_1")
        XCTAssertEqual(object["kind"] as? String, "orderReady")
        XCTAssertEqual(object["orderId"] as? String, "ord_1")
        XCTAssertNil(object["deviceId"])
        XCTAssertEqual(object["recipient"] as? String, "fcm:abc")
    }
}
