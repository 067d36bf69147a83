import Foundation
import ServiceRuntime
import Testing

/// `deploy/run-local.sh` as a developer runs it (with the built executables, `--bin`), on its
/// default loopback ports: plain as before, and `--secure` in deployed mode with its key folder,
/// its demo principals and the cafectl flags it prints; `deploy/stop-local.sh` stops either.
@Suite(.serialized)
struct RunLocalTests {
    let bin: URL
    let data: URL

    init() throws {
        bin = try Platform.binaryDirectory()
        data = FileManager.default.temporaryDirectory.appendingPathComponent("cafe-run-local-\(UUID().uuidString.prefix(8))")
    }

    func script(_ name: String, _ arguments: [String]) throws -> CommandResult {
        try runCommand(URL(fileURLWithPath: "/bin/bash"), [DeployFiles.deployFolder.appendingPathComponent(name).path] + arguments,
                       environment: environmentWithoutCafeVariables(), timeout: 120)
    }

    func cafectl(_ arguments: [String]) throws -> CommandResult {
        try runCommand(bin.appendingPathComponent("cafectl"), arguments + ["--timeout-ms", "2000"], environment: environmentWithoutCafeVariables())
    }

    /// curl against run-local's Pushpin: the status and the body.
    func http(_ method: String, _ path: String, token: String? = nil, json: String? = nil) throws -> (status: Int, body: String) {
        var args = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "http://127.0.0.1:8080" + path]
        if let token { args += ["-H", "Authorization: Bearer \(token)"] }
        if let json { args += ["-H", "Content-Type: application/json", "--data-binary", json] }
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), args)
        let lines = result.out.components(separatedBy: "\n")
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// Signs in through the HTTP API with an ID token from run-local's test issuer; the bearer token.
    func signIn(_ subject: String) throws -> String {
        let idToken = try script("local-issuer.sh", ["token", data.appendingPathComponent("issuer").path, subject, "n-1"]).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let reply = try http("POST", "/v1/sessions", json: #"{"idToken":"\#(idToken)","nonce":"n-1","deviceId":"phone-1"}"#)
        #expect(reply.status == 200, "\(reply.body)")
        let object = try JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [String: Any]
        return try #require(object?["token"] as? String)
    }

    /// Stops whatever the script left running, pass or fail.
    func cleanUp() {
        _ = try? script("stop-local.sh", [data.path])
        try? FileManager.default.removeItem(at: data)
    }

    @Test("run-local.sh --secure starts every process deployed with keys under <data>/keys, prints the flags, and each demo principal works as its role")
    func secure() throws {
        defer { cleanUp() }
        let started = try script("run-local.sh", ["--secure", "--detach", "--data", data.path, "--bin", bin.path])
        try #require(started.status == 0, "\(started.out) \(started.err)")
        let keys = KeyFolder(data.appendingPathComponent("keys").path)
        let operatorFlags = ["--keys", keys.path, "--as", "operator"]
        for principal in ["operator", "phone-alice", "kitchen-macs", "kiosk-macs", "edge"] {
            #expect(started.err.contains("--keys \(keys.path) --as \(principal)"), "run-local.sh does not print the flags for \(principal):\n\(started.err)")
        }
        let registry = try keys.registry()
        #expect(registry.principal(named: "phone-alice").map { $0.role == .phone && $0.deviceId == "phone-1" && $0.userId == "alice" } == true)
        #expect(registry.principal(named: "kitchen-macs")?.cafeId == "caffe-macs" && registry.principal(named: "kiosk-macs")?.role == .kiosk)
        #expect(registry.principal(named: "edge")?.role == .edge)
        // Every process runs deployed: the operator's health says so; a client without keys gets nothing.
        let health = try cafectl(["health"] + operatorFlags)
        #expect(health.status == 0, "\(health.out) \(health.err)")
        let lines = health.out.split(separator: "\n")
        #expect(lines.count == 6 && lines.allSatisfy { $0.contains("\"status\":\"ok\"") }, "\(health.out)")
        // The five services report their mode (the bus answers the operator over CURVE, below it refuses a plain client).
        #expect(lines.filter { !$0.contains("\"service\":\"bus\"") }.allSatisfy { $0.contains("\"security\":\"deployed\"") }, "\(health.out)")
        #expect(try cafectl(["health", "bus", "--timeout-ms", "300"]).status == 1)
        // The demo principals, each allowed its own and refused another's.
        #expect(try cafectl(["prefs", "set", "closestToMe", "--keys", keys.path, "--as", "phone-alice"]).status == 0)
        #expect(try cafectl(["kds", "tickets", "--keys", keys.path, "--as", "kitchen-macs"]).status == 0)
        #expect(try cafectl(["windows", "--cafe", "caffe-macs", "--keys", keys.path, "--as", "kiosk-macs"]).status == 0)
        let refused = try cafectl(["kds", "tickets", "--keys", keys.path, "--as", "phone-alice"])
        #expect(refused.status == 1 && refused.err.contains("auth.forbidden"), "\(refused.err)")
        // The HTTP API through Pushpin and the edge (its own key): sign in with the test issuer, read the menu.
        #expect(started.err.contains("HTTP API: http://127.0.0.1:8080"), "\(started.err)")
        let bearer = try signIn("alice")
        #expect(try http("GET", "/v1/menu?locale=en_US", token: bearer).status == 200)

        // Stopped, and started again: the keys are kept, not made anew.
        #expect(try script("stop-local.sh", [data.path]).status == 0)
        #expect(try cafectl(["health", "bus"] + operatorFlags).status == 1)
        let again = try script("run-local.sh", ["--secure", "--detach", "--data", data.path, "--bin", bin.path])
        let logs = ["bus", "region-monitor"].map { name in
            "\(name): " + ((try? String(contentsOf: data.appendingPathComponent("logs/\(name).log"), encoding: .utf8))?.suffix(3000) ?? "")
        }.joined(separator: "\n")
        #expect(again.status == 0, "\(again.out) \(again.err) \(logs)")
        #expect(try keys.registry() == registry)
        #expect(try cafectl(["health"] + operatorFlags).status == 0)
    }

    @Test("deploy/README.md's walk over HTTP, run as written against run-local.sh --secure, ends with the order's ready notification; the App Clip's walk confirms, orders and claims")
    func httpWalk() throws {
        defer { cleanUp() }
        let manual = try String(contentsOf: DeployFiles.deployFolder.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(manual.range(of: "### Walking it over HTTP"), "deploy/README.md has no HTTP walk")
        let open = try #require(manual.range(of: "```sh\n", range: section.upperBound..<manual.endIndex))
        let close = try #require(manual.range(of: "\n```", range: open.upperBound..<manual.endIndex))
        // As written, but in this test's data folder and with the executables already built.
        // The App Clip's block runs after it, on the same platform.
        let clipSection = try #require(manual.range(of: "### An App Clip over HTTP"), "deploy/README.md has no App Clip walk")
        let clipOpen = try #require(manual.range(of: "```sh\n", range: clipSection.upperBound..<manual.endIndex))
        let clipClose = try #require(manual.range(of: "\n```", range: clipOpen.upperBound..<manual.endIndex))
        let block = (String(manual[open.upperBound..<close.lowerBound]) + "\n" + String(manual[clipOpen.upperBound..<clipClose.lowerBound]))
            .replacingOccurrences(of: "deploy/run-local.sh --secure --detach", with: "deploy/run-local.sh --secure --detach --data \(data.path) --bin \(bin.path) 2>/dev/null")
            .replacingOccurrences(of: " data/", with: " \(data.path)/")
            .replacingOccurrences(of: "$(swift build --show-bin-path)", with: bin.path)
        let script = data.deletingLastPathComponent().appendingPathComponent("walk-\(UUID().uuidString.prefix(8)).sh")
        try ("set -euo pipefail\ncd \(DeployFiles.deployFolder.deletingLastPathComponent().path)\n" + block).write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let walked = try runCommand(URL(fileURLWithPath: "/bin/bash"), [script.path], environment: environmentWithoutCafeVariables(), timeout: 120)
        #expect(walked.status == 0, "\(walked.out) \(walked.err)")
        #expect(walked.out.contains(#""rule":"nearestBeacon""#), "\(walked.out)")
        #expect(walked.out.contains("event: order.ready\n"), "the order's SSE stream said ready: \(walked.out)")
        #expect(walked.out.contains(#""title":"Your order is ready""# + "\n"), "\(walked.out)")
        #expect(walked.out.contains(#""result":"yes""#) && walked.out.contains(#""state":"accepted""#), "the App Clip's confirmation and order: \(walked.out)")
        #expect(walked.out.contains(#"{"orderIds":["ord_"#), "the guest's order claimed: \(walked.out)")
    }

    @Test("plain run-local.sh runs as before: no keys, health answers any local client")
    func plain() throws {
        defer { cleanUp() }
        let started = try script("run-local.sh", ["--detach", "--data", data.path, "--bin", bin.path])
        try #require(started.status == 0, "\(started.out) \(started.err)")
        let health = try cafectl(["health"])
        #expect(health.status == 0 && health.out.split(separator: "\n").filter { !$0.contains("\"service\":\"bus\"") }.allSatisfy { $0.contains("\"security\":\"plain\"") },
                "\(health.out)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("keys").path))
        #expect(!started.err.contains("--keys"))
        #expect(try http("GET", "/v1/openapi.json").status == 200)
        // HTTPS on 8443 with the local test CA's certificate; a client that does not trust the CA refuses it.
        let ca = data.appendingPathComponent("pushpin/ca.crt").path
        let https = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", ca,
                                                                          "https://localhost:8443/v1/openapi.json"])
        #expect(https.out == "200", "\(https.out) \(https.err)")
        #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "https://localhost:8443/v1/openapi.json"]).status != 0)
        #expect(try http("GET", "/v1/menu?locale=en_US", token: try signIn("bob")).status == 200)
        #expect(try script("stop-local.sh", [data.path]).status == 0)
        #expect(try cafectl(["health", "bus", "--timeout-ms", "300"]).status == 1)
    }
}
