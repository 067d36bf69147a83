import Campus
import Foundation
import ServiceRuntime
import ZeroMQ

/// `load-test abuse`: against a running platform, runs the attacks of issue 28 one after another,
/// each beside the steady load of `load-test run` (sightings and orders at the rates its flags
/// give), and prints per attack what legitimate work saw: health answer time, sighting → region
/// event and order → notification p99, loss, and each process's memory before, during and after,
/// with a verdict against the issue's targets.
public enum AbuseCommand {
    static let summary = "attacks (handshakes, replays, requests, subscriptions) one after another beside a steady load; what legitimate work saw, judged against issue 28's targets"

    /// Runs `load-test abuse` with `arguments` (after the command word); the exit status: 0 when
    /// every attack ran (whatever the verdicts), 1 when one could not.
    public static func main(arguments: [String]) -> Int32 {
        let config = subcommandConfiguration(program: "load-test abuse", summary: summary, specs: AbuseSettings.specs, arguments: arguments,
                                             usage: "load-test abuse [options]")
        let settings = AbuseSettings(config)
        for name in settings.attacks where AbuseAttacks.make(name, settings: settings) == nil {
            usageFailure("load-test abuse: unknown attack \"\(name)\" (attacks: \(AbuseAttacks.names.joined(separator: ", ")))")
        }
        // The steady load's generator, as `run`'s (the attackers lower their own threads).
        let priority = GeneratorPriority.raise(to: settings.load.generatorNice)
        let security = LoadSecurity.from(config)
        // The attacks' keys are minted and revoked apart from the steady load's.
        let attackSecurity = LoadSecurity.from(config)
        do {
            let catalog = try CampusCatalog.load(path: config[RunOptions.campus])
            let context = try Context()
            // The attacks' context is their own, its threads at the attacker's priority (AttackerHost).
            let attackContext = try AttackerHost.makeContext(ioThreads: 2)
            let watch = AbuseWatch(context: context, targets: try targets(settings, security: security))
            watch.start()
            defer { watch.stop() }
            Thread.sleep(forTimeInterval: 3)
            var before = watch.nextPhase().lastRSS
            // The steady load alone first: what it grows by itself (beacon-ingest keeps smoothing
            // state per phone, and every run brings new phones) is allowed to each attack's run.
            let baseline = try measure(nil, runID: "ab" + String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF)), before: before, allowance: [:],
                                       settings: settings, catalog: catalog, context: context, attackContext: attackContext, watch: watch, security: security, attackSecurity: attackSecurity, priority: priority)
            print(baseline.table)
            print("")
            before = baseline.after
            let allowance = baseline.growth
            var reports: [AbuseReport] = [baseline]
            for name in settings.attacks {
                guard let attack = AbuseAttacks.make(name, settings: settings) else { continue }
                let runID = "ab" + String(format: "%06x", UInt32.random(in: 0...0xFF_FFFF))
                let report = try measure(attack, runID: runID, before: before, allowance: allowance, settings: settings, catalog: catalog, context: context, attackContext: attackContext,
                                         watch: watch, security: security, attackSecurity: attackSecurity, priority: priority)
                print(report.table)
                print("")
                reports.append(report)
                before = report.after
            }
            print(AbuseReport.summary(reports))
            return 0
        } catch {
            logLine("load-test abuse: \(error)")
            return 1
        }
    }

    /// Runs the steady load beside `attack` (nil: alone, the baseline) and reads memory once it
    /// has settled after: what legitimate work saw.
    static func measure(_ attack: AbuseAttack?, runID: String, before: [String: Int], allowance: [String: Int], settings: AbuseSettings,
                        catalog: CampusCatalog, context: Context, attackContext: Context, watch: AbuseWatch, security: LoadSecurity, attackSecurity: LoadSecurity, priority: GeneratorPriority) throws -> AbuseReport {
        let name = attack?.name ?? "none"
        logLine("load-test abuse: attack \(name) (run \(runID)): \(attack?.summary ?? "the steady load alone, the baseline")")
        var keys = AttackKeys(byName: [:])
        if let attack {
            let minted = attack.keys(runID: runID)
            try attackSecurity.mint(minted)
            // Every process reads the registry twice a second.
            if attackSecurity.isDeployed { Thread.sleep(forTimeInterval: 2) }
            keys = try attackKeys(minted.map(\.name), settings: settings, security: attackSecurity)
        }
        defer { attackSecurity.revokeMinted() }
        _ = watch.nextPhase()
        try attack?.start(context: attackContext, keys: keys)
        Thread.sleep(forTimeInterval: settings.rampSeconds)
        let runner = LoadRunner(settings: settings.load, catalog: catalog, context: context, runID: runID, security: security, log: logLine)
        runner.priority = priority
        // A steady load that cannot even start (no heartbeat on the bus, a service not answering)
        // is what the attack did to legitimate work: reported, not fatal.
        let load: RunReport?
        var failure: String? = nil
        do {
            load = try runner.run()
        } catch {
            load = nil
            failure = "\(error)"
            security.revokeMinted()
        }
        let counts = attack?.stop() ?? []
        let during = watch.nextPhase()
        attackSecurity.revokeMinted()
        logLine("load-test abuse: attack \(name) stopped; \(Int(settings.settleSeconds)) s to settle")
        Thread.sleep(forTimeInterval: settings.settleSeconds)
        let after = watch.nextPhase().lastRSS
        return AbuseReport(attack: name, summary: attack?.summary ?? "no attack: the steady load alone (its memory growth is allowed to every attack)",
                           attackCounts: counts, load: load, loadFailure: failure, during: during, before: before, after: after,
                           allowance: allowance, processes: watch.targets.map(\.name))
    }

    /// The processes watched: the platform's, each at its request endpoint, reached as the observer.
    static func targets(_ settings: AbuseSettings, security: LoadSecurity) throws -> [AbuseWatch.Target] {
        let load = settings.load
        let named: [(String, String, Bool)] = [
            ("bus", load.bus, true), ("beacon-ingest", load.ingest.first ?? "", true), ("region-monitor", load.region.first ?? "", true),
            ("order-service", load.orders, true), ("kitchen-display", load.kitchen, true), ("notification-service", load.notify, true),
            ("edge", settings.edge, false),
        ]
        let observer = try security.security(as: nil)
        return try named.filter { !$0.1.isEmpty }.map { name, peer, required in
            let (server, endpoint) = PeerEndpoint.split(peer, defaultName: name)
            return AbuseWatch.Target(name: name, endpoint: endpoint, curve: try observer.clientKeys(server: server), required: required)
        }
    }

    /// The client keys of each minted name for every server an attack may reach.
    static func attackKeys(_ names: [String], settings: AbuseSettings, security: LoadSecurity) throws -> AttackKeys {
        guard security.isDeployed else { return AttackKeys(byName: [:]) }
        let servers = Set(["order-service", "bus", PeerEndpoint.split(settings.replayEndpoint, defaultName: "order-service").name] + settings.handshakes.servers)
        var byName: [String: [String: RequestClient.CurveClientKeys]] = [:]
        for name in names {
            let identity = try security.security(as: name)
            for server in servers { byName[name, default: [:]][server] = try identity.clientKeys(server: server) }
        }
        return AttackKeys(byName: byName)
    }
}
