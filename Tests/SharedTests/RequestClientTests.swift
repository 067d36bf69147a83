import Foundation
import Messages
import ServiceRuntime
import Testing
import ZeroMQ

@Suite("Request client")
struct RequestClientTests {
    struct Echo: Codable, Sendable, Equatable {
        var text: String
    }

    static func server() -> RouterServer {
        RouterServer { router in
            router.on("echo", Echo.self) { $0 }
            router.on("slow", Echo.self) { body in
                Thread.sleep(forTimeInterval: 0.3)
                return body
            }
            router.on(Op.orderGet, OrderQuery.self) { query, _ -> Echo in
                throw ServiceError(.unknownOrder, "no order \(query.orderId)")
            }
        }
    }

    @Test("a call returns the typed reply body, or throws the service's error", arguments: Transport.allCases)
    func roundTrip(_ transport: Transport) throws {
        let context = try Context()
        let server = Self.server()
        let endpoint = try #require(server.start(context: context, bind: transport.bindEndpoint()))
        defer { server.stopAndWait() }
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 2_000)
        defer { client.close() }

        #expect(try client.call("echo", Echo(text: "café ☕️"), as: Echo.self) == Echo(text: "café ☕️"))
        #expect(throws: ServiceError(code: "order.unknown", message: "no order ord-404")) {
            try client.call(Op.orderGet, OrderQuery(orderId: "ord-404"), as: Echo.self)
        }
        let unknown = #expect(throws: ServiceError.self) { try client.call("teleport", Echo(text: ""), as: Echo.self) }
        #expect(unknown?.code == "request.unknownOp")
    }

    @Test("a reply that does not come in time is client.timeout, and the next call works on a fresh socket")
    func lazyPirate() throws {
        let context = try Context()
        let server = Self.server()
        let endpoint = try #require(server.start(context: context, bind: uniqueInproc()))
        defer { server.stopAndWait() }
        let client = RequestClient(context: context, endpoint: endpoint, timeoutMilliseconds: 100)
        defer { client.close() }

        let started = Date()
        let error = #expect(throws: ServiceError.self) { try client.call("slow", Echo(text: "late"), as: Echo.self) }
        #expect(error?.code == "client.timeout")
        #expect(error?.message == "no reply from \(endpoint) within 100 ms")
        #expect(Date().timeIntervalSince(started) < 1.0)

        // The server is still busy with the slow request for a moment; retry until it answers.
        var answer: Echo?
        for _ in 0..<20 where answer == nil {
            answer = try? client.call("echo", Echo(text: "again"), as: Echo.self)
        }
        #expect(answer == Echo(text: "again"))
    }
}
