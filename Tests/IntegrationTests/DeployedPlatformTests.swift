import Foundation
import Messages
import ServiceRuntime
import Testing
import TestSupport
import ZeroMQ

/// The platform in deployed mode, through its sockets: CURVE on every socket, callers known by
/// their keys.
@Suite(.serialized)
struct DeployedPlatformTests {
    @Test("every process starts in deployed mode and answers the operator over CURVE, and nobody without a key")
    func startsDeployed() throws {
        let platform = try Platform(security: .deployed)
        defer { platform.stop() }
        try platform.startAll()
        let context = try Context()
        for service in ["bus"] + Platform.services {
            let health = try platform.client(service, as: "operator", context: context).call(Op.health, Empty(), as: HealthStatus.self)
            #expect(health.status == "ok", "\(service): \(health.details)")
            // A plain client gets no session: its request times out unanswered.
            let plain = RequestClient(context: context, endpoint: platform.endpoint(service), timeoutMilliseconds: 300)
            defer { plain.close() }
            #expect(serviceError { try plain.call(Op.health, Empty(), as: HealthStatus.self) }?.code == "client.timeout", "\(service)")
        }
    }
}

