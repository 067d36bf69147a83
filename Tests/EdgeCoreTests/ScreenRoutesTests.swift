import EdgeCore
import Foundation
import Messages
import Policy
import Testing

/// The screens' routes (issue 29): what they resolve to, and who is refused before the edge reads
/// anything. The kitchen's are a kitchen token's; the status page's an operator's, and nothing else is.
@Suite("route table: the screens")
struct ScreenRoutesTests {
    let router = EdgeRouter()

    func resolve(_ uri: String, role: Role?) throws(Problem) -> EdgeCall {
        try router.resolve(method: "GET", uri: uri, headers: HTTPHeaders(), body: [], role: role)
    }

    func status(_ uri: String, role: Role?) -> Int {
        do {
            _ = try resolve(uri, role: role)
            return 200
        } catch {
            return error.status
        }
    }

    @Test("the kitchen's snapshots and stream: a kitchen token, the query as an object the edge reads")
    func kitchen() throws {
        let call = try resolve("/v1/screens/kitchen?station=grill&cafeId=caffe-macs", role: .kitchen)
        #expect(call.action == .screen(.kitchenScreen) && call.route.op == nil)
        let query = try #require(try JSONSerialization.jsonObject(with: Data(call.body)) as? [String: String])
        #expect(query == ["cafeId": "caffe-macs", "station": "grill"])
        #expect(try resolve("/v1/screens/pickup", role: .kitchen).action == .screen(.pickupBoard))
        let stream = try resolve("/v1/screens/events?cafeId=caffe-macs", role: .kitchen)
        #expect(stream.action == .stream(.cafeEvents) && stream.route.isStream && String(decoding: stream.body, as: UTF8.self) == #"{"cafeId":"caffe-macs"}"#)
        for uri in ["/v1/screens/kitchen", "/v1/screens/pickup", "/v1/screens/events"] {
            #expect(status(uri, role: nil) == 401, "\(uri)")
            for role in [Role.phone, .kiosk, .operator, .gateway, .service, .edge] {
                #expect(status(uri, role: role) == 403, "\(uri) as \(role)")
            }
        }
        #expect(status("/v1/screens/kitchen?after=3", role: .kitchen) == 422)
    }

    @Test("the status page: an operator token only; an operator token reaches no op route")
    func statusPage() throws {
        #expect(try resolve("/v1/screens/status", role: .operator).action == .screen(.status))
        #expect(try resolve("/v1/screens/status/events", role: .operator).action == .stream(.statusEvents))
        for role in [Role.phone, .kiosk, .kitchen] {
            #expect(status("/v1/screens/status", role: role) == 403 && status("/v1/screens/status/events", role: role) == 403, "\(role)")
        }
        #expect(RouteTable.v1.filter { $0.roles.contains(.operator) && $0.op != nil }.isEmpty)
    }
}
