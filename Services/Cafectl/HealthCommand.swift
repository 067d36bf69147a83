import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `cafectl health [service...] [--live true] [--json]`: asks each service and prints a table, one
/// line per service (`HealthTable`), or with `--json` one JSON line per service as each answers
/// (the form scripts read); exits 1 when any does not answer ok. With `--live true` (a liveness probe) it exits 1
/// only when one does not answer at all or refuses: "degraded" (its bus unreachable, its disk
/// full) still counts as alive, because restarting a process does not bring its bus back. An
/// orchestrator that replaces unhealthy tasks (Swarm, a Kubernetes liveness probe) uses this, so
/// a bus down for half a minute does not restart every service.
enum HealthCommand {
    static let live = Option.flag("live", default: false, help: "a liveness probe: exit 0 when each answers, degraded or not")
    static let json = Option.flag("json", default: false, help: "one JSON line per service instead of the table, for scripts")
    static let flags = [CommandFlag(live), CommandFlag(json, .switchOnly)]

    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        let names = Array(args.words.dropFirst())
        let values = try args.command(Self.flags)
        let live = values[Self.live], json = values[Self.json]
        let selected = Endpoints.services.filter { names.isEmpty || names.contains($0.name) || names.contains($0.option.name) }
        guard !selected.isEmpty else { throw UsageError("no service named \(names.joined(separator: ", "))") }
        let context = try Context()
        var healthy = true
        var rows: [HealthTable.Row] = []
        for service in selected {
            let client = try endpoints.client(service.option, context: context, timeoutMilliseconds: min(endpoints.timeoutMilliseconds, 2_000))
            defer { client.close() }
            var line: [String: Any] = ["service": service.name, "endpoint": endpoints[service.option]]
            var row = HealthTable.Row(service: service.name)
            do {
                let status = try client.call(Op.health, Empty(), as: HealthStatus.self)
                row.status = status
                line["status"] = status.status
                line["uptimeSeconds"] = (status.uptimeSeconds * 10).rounded() / 10
                line["streams"] = status.streams
                line["outboxPending"] = status.outboxPending
                line["details"] = status.details
                if status.status != "ok" && !live { healthy = false }
            } catch let error as ServiceError where error.code == ErrorCode.forbidden.rawValue {
                line["status"] = "refused"
                line["error"] = "\(error.code): \(error.message)"
                (row.failure, row.error) = ("refused", error.code)
                healthy = false
            } catch {
                line["status"] = "unreachable"
                line["error"] = "\(error)"
                (row.failure, row.error) = ("unreachable", (error as? ServiceError)?.message ?? "\(error)")
                healthy = false
            }
            rows.append(row)
            guard json else { continue }
            let data = try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes])
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
        if !json { print(HealthTable(rows: rows).lines().joined(separator: "\n")) }
        return healthy ? 0 : 1
    }
}

/// `cafectl request <service> <op> [body-json]`: any op, the reply printed as received.
enum RawRequestCommand {
    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        _ = try args.command([])
        guard (3...4).contains(args.words.count) else { throw UsageError("usage: cafectl request <service> <op> [body-json]") }
        // The edge too, though health's default round keeps to the five services and the bus.
        let known = Endpoints.services + [(name: "edge", option: Endpoints.edge)]
        guard let service = known.first(where: { $0.option.name == args.words[1] || $0.name == args.words[1] }) else {
            throw UsageError("unknown service \(args.words[1])")
        }
        let body = args.words.count == 4 ? args.words[3] : "{}"
        let frame = Data("{\"op\":\(String(decoding: Wire.encode(args.words[2]), as: UTF8.self)),\"id\":\"cafectl\",\"body\":\(body)}".utf8)
        let context = try Context()
        let client = try endpoints.client(service.option, context: context)
        defer { client.close() }
        let reply = try client.send(raw: frame)
        FileHandle.standardOutput.write(reply + Data("\n".utf8))
        let ok = (try? JSONSerialization.jsonObject(with: reply) as? [String: Any])?["ok"] as? Bool ?? false
        return ok ? 0 : 1
    }
}
