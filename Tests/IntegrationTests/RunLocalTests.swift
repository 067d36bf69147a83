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
        let health = try cafectl(["health", "--json"] + operatorFlags)
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

    /// The first sh block after `heading` in deploy/README.md.
    func readmeBlock(_ manual: String, after heading: String) throws -> String {
        let section = try #require(manual.range(of: heading), "deploy/README.md has no \(heading)")
        let open = try #require(manual.range(of: "```sh\n", range: section.upperBound..<manual.endIndex))
        let close = try #require(manual.range(of: "\n```", range: open.upperBound..<manual.endIndex))
        return String(manual[open.upperBound..<close.lowerBound])
    }

    @Test("deploy/README.md's walk over HTTP, run as written against run-local.sh --secure, ends with the order's ready notification; the App Clip's walk confirms, orders and claims; the push walk's phone gets one signed orderReady APNs alert and Live Activity updates ending at pickup")
    func httpWalk() throws {
        defer { cleanUp() }
        let manual = try String(contentsOf: DeployFiles.deployFolder.appendingPathComponent("README.md"), encoding: .utf8)
        // As written, but in this test's data folder and with the executables already built.
        // The App Clip's block and then the push block run after it, on the same platform.
        let block = try ["### Walking it over HTTP", "### An App Clip over HTTP", "### Push to a phone (APNs)"].map { try readmeBlock(manual, after: $0) }
            .joined(separator: "\n")
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
        #expect(walked.out.contains(#""state":"pickedUp""#), "the push walk's order picked up: \(walked.out)")
        try expectPushWalk(printed: walked.out)
    }

    /// What the local APNs peer recorded for the push walk's phone: one orderReady alert it
    /// accepted (every check passed, the signature too), then the activity's updates to `end`.
    func expectPushWalk(printed: String) throws {
        let text = try String(contentsOf: data.appendingPathComponent("apns/record.jsonl"), encoding: .utf8)
        let seen = text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let phone = seen.filter { $0["token"] as? String == "5f1d3c0a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817065f4e" }
        try #require(phone.count == 1, "one push to the phone: \(text)")
        let alert = phone[0], headers = alert["headers"] as? [String: String] ?? [:], payload = alert["payload"] as? [String: Any] ?? [:]
        let aps = payload["aps"] as? [String: Any] ?? [:], title = (aps["alert"] as? [String: Any])?["title"] as? String
        let orderId = try #require(payload["orderId"] as? String)
        #expect(alert["status"] as? Int == 200 && alert["kid"] as? String == "LOCALAPNS1", "\(alert)")
        #expect(payload["kind"] as? String == "orderReady" && title == "Deine Bestellung ist fertig" && aps["thread-id"] as? String == orderId, "\(payload)")
        #expect(headers["apns-push-type"] == "alert" && headers["apns-collapse-id"] == orderId && headers["apns-priority"] == "10" && headers["apns-topic"] == "edu.campus.cafe",
                "\(headers)")
        #expect(Int(headers["apns-expiration"] ?? "").map { $0 > Int(Date().timeIntervalSince1970) } == true, "\(headers)")
        let activity = seen.filter { $0["token"] as? String == "80a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f" }
        let updates = activity.compactMap { ($0["payload"] as? [String: Any])?["aps"] as? [String: Any] }
        let phases = updates.compactMap { ($0["content-state"] as? [String: Any])?["phase"] as? String }
        #expect(activity.allSatisfy { $0["status"] as? Int == 200 && ($0["headers"] as? [String: String])?["apns-push-type"] == "liveactivity" }, "\(activity)")
        #expect(phases.suffix(3) == ["preparing", "ready", "pickedUp"] && updates.last?["event"] as? String == "end", "\(phases) \(updates)")
        let stamps = updates.compactMap { $0["timestamp"] as? Int }
        #expect(stamps.count == updates.count && zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "\(stamps)")
        // The README's last command prints them, one line each.
        #expect(printed.contains("200 alert token=5f1d3c0a… apns-collapse-id=\(orderId)") && printed.contains("phase=pickedUp event=end timestamp=") && printed.contains(" dismissal-date="), "\(printed)")
    }

    @Test("plain run-local.sh runs as before: no keys, health answers any local client")
    func plain() throws {
        defer { cleanUp() }
        let started = try script("run-local.sh", ["--detach", "--data", data.path, "--bin", bin.path])
        try #require(started.status == 0, "\(started.out) \(started.err)")
        let health = try cafectl(["health", "--json"])
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
        // The local APNs peer runs too, over TLS with its own test CA, and says where it records.
        let apns = data.appendingPathComponent("apns")
        let port = try String(contentsOf: apns.appendingPathComponent("port"), encoding: .utf8)
        #expect(started.err.contains("Local APNs peer: https://127.0.0.1:\(port)") && started.err.contains("\(apns.path)/record.jsonl"), "\(started.err)")
        let peer = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert", apns.appendingPathComponent("ca.crt").path, "-X", "POST", "https://127.0.0.1:\(port)/3/device/00"]
        #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), peer).out == "400", "a request without an apns-id is refused")
        #expect(try script("stop-local.sh", [data.path]).status == 0)
        #expect(try cafectl(["health", "bus", "--timeout-ms", "300"]).status == 1)
        #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), peer).out == "000", "the peer stopped with the platform")
        // --no-apns-peer: no peer, and notification-service runs without an APNs key.
        let without = try script("run-local.sh", ["--detach", "--no-apns-peer", "--data", data.path, "--bin", bin.path])
        try #require(without.status == 0, "\(without.out) \(without.err)")
        #expect(!without.err.contains("Local APNs peer") && !FileManager.default.fileExists(atPath: apns.appendingPathComponent("port").path), "\(without.err)")
        #expect(try cafectl(["health", "notification-service"]).status == 0)
        #expect(try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), peer).out == "000")
        #expect(try script("stop-local.sh", [data.path]).status == 0)
    }
}
