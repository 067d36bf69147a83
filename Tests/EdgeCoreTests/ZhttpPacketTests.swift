import EdgeCore
import Foundation
import Messages
import Testing

@Suite("zmq-http packets: what Pushpin sends a zhttpreq handler, and what it takes back")
struct ZhttpPacketTests {
    static let request = ZhttpRequest(id: Array("pushpin-1-42".utf8), from: Array("pushpin-proxy_1".utf8), method: "POST",
                                      uri: "https://cafe.example/v1/orders?x=1",
                                      headers: HTTPHeaders([("Content-Type", "application/json"), ("Idempotency-Key", "k-7f3a9c21")]),
                                      body: Array("{\"cafeId\":\"macs\"}".utf8), peerAddress: "10.0.0.7")

    func refusal(_ frame: Data, limits: ZhttpLimits = .standard) -> ZhttpRefusal? {
        do {
            _ = try ZhttpRequest.decode(frame, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    func packet(_ members: [(key: String, value: TNetString)]) -> Data {
        Data([UInt8(ascii: "T")] + TNetString.dictionary(members).encoded())
    }

    func answeredCode(_ frame: Data, limits: ZhttpLimits = .standard) -> String? {
        if case .answered(_, _, let problem)? = refusal(frame, limits: limits) { return problem.code }
        return nil
    }

    @Test("a request reads back every member it was written with")
    func roundTrip() throws {
        let read = try ZhttpRequest.decode(Self.request.frame)
        #expect(read == Self.request)
        #expect(read.headers["content-type"] == "application/json", "header names compare without case")
    }

    @Test("a packet exactly as Pushpin's req mode writes one (members in its order, max-size, no type) is read")
    func pushpinPacket() throws {
        let frame = packet([("from", .text("proxy")), ("id", .text("7")), ("method", .text("GET")), ("uri", .text("http://localhost:7999/v1/menu?locale=en_US")),
                            ("headers", .list([.list([.text("Host"), .text("localhost:7999")]), .list([.text("Accept"), .text("*/*")])])),
                            ("body", .bytes([])), ("max-size", .integer(1_000_000)), ("ext", .dictionary([("quiet", .bool(true))]))])
        let read = try ZhttpRequest.decode(frame)
        #expect(read.id == Array("7".utf8) && read.method == "GET" && read.headers["host"] == "localhost:7999" && read.body.isEmpty)
    }

    @Test("a response is the id, code, reason, headers and body as one data packet Pushpin accepts")
    func response() throws {
        let answer = EdgeResponse.json(Array("{\"ok\":1}".utf8)).zhttp(answering: Array("abc".utf8), from: "edge")
        let frame = answer.frame
        #expect(frame.first == UInt8(ascii: "T"))
        let value = try TNetStringDecoder(limits: .zhttp).decode([UInt8](frame.dropFirst()))
        #expect(value["type"] == nil && value["more"] == nil, "req mode takes a data packet, whole")
        #expect(value["code"] == .integer(200) && value["reason"] == .text("OK") && value["id"] == .text("abc"))
        #expect(ZhttpResponse.decode(frame) == answer)
    }

    @Test("frames that name no readable id cannot be answered", arguments: [
        Data("{}".utf8), Data("T".utf8), Data("T3:abc,".utf8), Data("T0:}".utf8), Data("T5:1:x,}".utf8),
    ])
    func unanswerable(_ frame: Data) {
        guard case .unanswerable? = refusal(frame) else { Issue.record("\(refusal(frame).map(String.init(describing:)) ?? "accepted")"); return }
    }

    @Test("a cancel, keep-alive or any typed packet is not a request")
    func typedPackets() {
        for type in ["cancel", "keep-alive", "credit", "error"] {
            guard case .unanswerable(let code, _)? = refusal(packet([("id", .text("1")), ("type", .text(type))])) else {
                Issue.record("\(type) was taken"); continue
            }
            #expect(code == "zhttp.unsupportedType")
        }
    }

    @Test("each limit is answered with its own status, naming the request's id")
    func limits() throws {
        var limits = ZhttpLimits.standard
        limits.maxBodyBytes = 10
        limits.maxURIBytes = 30
        limits.maxHeaderCount = 2
        limits.maxHeaderBytes = 40
        func request(uri: String = "/v1/menu", headers: [(String, String)] = [], body: Int = 0) -> Data {
            ZhttpRequest(id: [1, 2], method: "GET", uri: uri, headers: HTTPHeaders(headers), body: Array(repeating: 0x20, count: body)).frame
        }
        #expect(answeredCode(request(body: 10), limits: limits) == nil)
        #expect(answeredCode(request(body: 11), limits: limits) == ErrorCode.tooLarge.rawValue)
        #expect(answeredCode(request(uri: "/" + String(repeating: "a", count: 30)), limits: limits) == ErrorCode.httpURITooLong.rawValue)
        #expect(answeredCode(request(headers: [("a", "1"), ("b", "2"), ("c", "3")]), limits: limits) == ErrorCode.httpHeadersTooLarge.rawValue)
        #expect(answeredCode(request(headers: [("a", String(repeating: "x", count: 40))]), limits: limits) == ErrorCode.httpHeadersTooLarge.rawValue)
        guard case .answered(let id, _, let problem)? = refusal(request(body: 11), limits: limits) else { Issue.record("not answered"); return }
        #expect(id == [1, 2] && problem.status == 413)
    }

    @Test("a body of 64 KiB is read; one byte more is 413 before any JSON is read")
    func sixtyFourKiB() throws {
        let exact = ZhttpRequest(id: [1], method: "POST", uri: "/v1/orders", body: Array(repeating: UInt8(ascii: "{"), count: 65_536))
        #expect(try ZhttpRequest.decode(exact.frame).body.count == 65_536)
        var over = exact
        over.body.append(UInt8(ascii: "}"))
        #expect(answeredCode(over.frame) == "request.tooLarge")
    }

    @Test("malformed members are answered 400", arguments: [
        [("id", TNetString.text("1")), ("method", .text("get")), ("uri", .text("/v1/menu"))],
        [("id", .text("1")), ("uri", .text("/v1/menu"))],
        [("id", .text("1")), ("method", .text("GET"))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/a b"))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/menu")), ("more", .bool(true))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/menu")), ("headers", .list([.list([.text("Bad Name"), .text("x")])]))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/menu")), ("headers", .list([.list([.text("a")])]))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/menu")), ("headers", .text("x"))],
        [("id", .text("1")), ("method", .text("GET")), ("uri", .text("/v1/menu")), ("body", .integer(1))],
    ] as [[(key: String, value: TNetString)]])
    func malformed(_ members: [(key: String, value: TNetString)]) {
        guard case .answered(_, _, let problem)? = refusal(packet(members)) else { Issue.record("not answered"); return }
        #expect(problem.status == 400 || problem.status == 431)
    }
}

@Suite("ROUTER envelopes: routing frames, the delimiter, one zmq-http frame")
struct ZhttpEnvelopeTests {
    @Test("a message as Pushpin's DEALER reaches a ROUTER splits, and the answer keeps its routing frames")
    func split() throws {
        let identity = Data([0, 1, 2, 3, 4])
        let frame = ZhttpRequest(id: [9], method: "GET", uri: "/v1/menu").frame
        let envelope = try #require(ZhttpEnvelope(frames: [identity, Data(), frame]))
        #expect(envelope.routing == [identity] && envelope.frame == frame)
        let answer = EdgeResponse.json([]).zhttp(answering: [9])
        #expect(envelope.reply(answer) == [identity, Data(), answer.frame])
    }

    @Test("messages without a delimiter, without routing, with too much routing or extra frames are not answerable", arguments: [
        [Data("T".utf8)], [Data(), Data("T".utf8)], [Data([1]), Data("T".utf8)], [Data([1]), Data(), Data("T".utf8), Data("x".utf8)],
        [Data([1]), Data([2]), Data([3]), Data([4]), Data([5]), Data(), Data("T".utf8)], [Data([1]), Data()],
    ])
    func refused(_ frames: [Data]) {
        #expect(ZhttpEnvelope(frames: frames) == nil)
    }
}
