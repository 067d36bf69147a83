import Messages
import OrderCore
import Testing

@Suite("Order request rules")
struct RequestRulesTests {
    @Test("idempotency keys: 8–64 of A–Z, a–z, 0–9, - and _", arguments: [
        ("abcdefgh", true),
        ("ABCD1234", true),
        ("order-2025_06-15", true),
        ("0d6f8e2a-4b1c-4f7e-9a3d-5c2b1e0f9a8d", true),
        (String(repeating: "k", count: 64), true),
        ("", false),
        ("abcdefg", false),
        (String(repeating: "k", count: 65), false),
        ("has space1", false),
        ("dots.in.key", false),
        ("slash/in/key", false),
        ("ümlautxyz", false),
        ("emoji😀abc", false),
        ("abcdefgh\n", false),
    ])
    func idempotencyKeys(key: String, valid: Bool) {
        let code = errorCode { () throws(ServiceError) in try RequestRules.validateIdempotencyKey(key) }
        #expect(code == (valid ? nil : "order.invalidIdempotencyKey"), "\(key)")
    }

    @Test("payment tokens: \"tok_\" and 16–64 letters or digits", arguments: [
        ("tok_" + String(repeating: "a", count: 16), nil),
        ("tok_" + String(repeating: "Z9", count: 32), nil),
        ("tok_4eC39HqLyjWDarjtT1zdp7dc", nil),
        (nil, "order.paymentRequired"),
        ("", "order.invalidPaymentToken"),
        ("tok_", "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "a", count: 15), "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "a", count: 65), "order.invalidPaymentToken"),
        ("tk_" + String(repeating: "a", count: 20), "order.invalidPaymentToken"),
        ("TOK_" + String(repeating: "a", count: 20), "order.invalidPaymentToken"),
        (" tok_" + String(repeating: "a", count: 20), "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "a", count: 10) + "-" + String(repeating: "a", count: 10), "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "a", count: 10) + "_" + String(repeating: "a", count: 10), "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "é", count: 16), "order.invalidPaymentToken"),
        ("tok_" + String(repeating: "a", count: 20) + " ", "order.invalidPaymentToken"),
    ] as [(String?, String?)])
    func paymentTokens(token: String?, code: String?) {
        #expect(errorCode { () throws(ServiceError) in try RequestRules.validatePaymentToken(token) } == code, "\(token ?? "nil")")
    }

    @Test("user, device and café ids: 1–64 of A–Z, a–z, 0–9, - and _", arguments: [
        ("u", true),
        ("user_42-A", true),
        ("caffe-macs", true),
        (String(repeating: "i", count: 64), true),
        ("", false),
        (String(repeating: "i", count: 65), false),
        ("a b", false),
        ("a/b", false),
        ("a.b", false),
        ("josé", false),
    ])
    func ids(value: String, valid: Bool) {
        let code = errorCode { () throws(ServiceError) in try RequestRules.validateID(value, field: "userId") }
        #expect(code == (valid ? nil : "request.invalidField"), "\(value)")
    }

    @Test("an id refusal names the field")
    func idRefusalNamesField() {
        do {
            try RequestRules.validateID("a b", field: "deviceId")
            Issue.record("accepted a bad id")
        } catch {
            #expect(error.message.hasPrefix("deviceId"))
        }
    }
}
