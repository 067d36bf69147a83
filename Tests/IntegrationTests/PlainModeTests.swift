import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// Plain mode is for a developer's loopback: it will not listen anywhere else unless told, loudly.
@Suite(.serialized)
struct PlainModeTests {
    @Test("plain mode refuses to bind 0.0.0.0, for the bus and for a service, naming the way out", arguments: ["bus", "kitchen-display"])
    func refusesWildcardBind(executable: String) throws {
        var platform = try Platform()
        defer { platform.stop() }
        let port = try LoopbackPorts.free(1)[0]
        platform.extraArguments[executable] = [executable == "bus" ? "--xpub" : "--listen", "tcp://0.0.0.0:\(port)"]
        try platform.start(executable)
        let process = try #require(platform.process(executable))
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let log = platform.log(executable)
        #expect(log.contains("plain mode binds only loopback") && log.contains("--insecure-plain"), "\(log)")
    }

    @Test("--insecure-plain lets a service bind 0.0.0.0, and it warns that it is insecure")
    func insecurePlainWarns() throws {
        var platform = try Platform()
        defer { platform.stop() }
        let port = try LoopbackPorts.free(1)[0]
        platform.extraArguments["kitchen-display"] = ["--listen", "tcp://0.0.0.0:\(port)", "--insecure-plain"]
        try platform.start(busAnd: [])
        try platform.start("kitchen-display")
        let context = try Context()
        let client = RequestClient(context: context, endpoint: "tcp://127.0.0.1:\(port)", timeoutMilliseconds: 500)
        defer { client.close() }
        _ = try eventually("kitchen-display answers on 0.0.0.0") { try? client.call(Op.health, Empty(), as: HealthStatus.self) }
        #expect(platform.log("kitchen-display").contains("insecure plain mode"))
    }
}
