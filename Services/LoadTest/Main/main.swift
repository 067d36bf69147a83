import Foundation
import LoadTestKit
import ServiceRuntime

// load-test: drives the platform from outside, through its sockets, and reports what it measured.
//   load-test [scenario]   the Caffè Macs scenario once, each step timed
//   load-test run          open-loop constant-rate load with latency percentiles and loss
//   load-test bench        benchmarks against raw libzmq

let overview = """
load-test: drive the Campus Café platform and measure it

usage:
  load-test [scenario] [options]   drive the Caffè Macs scenario once and time each step (the default)
  load-test run [options]          open-loop constant-rate load: sightings → region events, orders → notifications
  load-test bench [options]        benchmarks
  load-test pacing [options]       food ready vs customer arrival, kitchen paced by approach and not (its own platform)
  load-test truth [options]        location truth under indoor radio noise, judged against issue 25's targets (its own platform)
  load-test push [options]         sighting at the café → "ready" push accepted by a local APNs peer (its own platform and peer)
  load-test abuse [options]        attacks one after another beside a steady load, judged against issue 28's targets (a running platform)
  load-test <command> --help       the options of a command, each with its environment variable and default

deployed mode (the platform runs with --security deployed --keys DIR): give scenario and run
--keys DIR --as OPERATOR. load-test watches as that operator and mints into DIR the keys it acts
with (a gateway for sightings, a phone per ordering phone, a kitchen per café), revoking them
when it ends; their names start with the run id. bench measures both modes by itself.
"""

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "run":
    exit(RunCommand.main(arguments: Array(arguments.dropFirst())))
case "bench":
    exit(Benchmarks.run(arguments: Array(arguments.dropFirst())))
case "bench-peer":
    // The other process of bench (a); not an operator command.
    exit(BenchPeer.run(arguments: Array(arguments.dropFirst())))
case "scenario":
    exit(ScenarioCommand.main(arguments: Array(arguments.dropFirst())))
case "pacing":
    exit(PacingCommand.main(arguments: Array(arguments.dropFirst())))
case "truth":
    exit(TruthCommand.main(arguments: Array(arguments.dropFirst())))
case "push":
    exit(PushCommand.main(arguments: Array(arguments.dropFirst())))
case "abuse":
    exit(AbuseCommand.main(arguments: Array(arguments.dropFirst())))
case "help", "--help", "-h":
    print(overview)
    print("")
    print(Configuration.helpText(program: "load-test scenario", summary: ScenarioCommand.summary, specs: ScenarioCommand.specs, usage: "load-test [scenario] [options]"))
    exit(0)
case let first? where !first.hasPrefix("-"):
    usageFailure("load-test: unknown command \"\(first)\" (commands: scenario, run, bench, pacing, truth, push, abuse; see --help)")
default:
    exit(ScenarioCommand.main(arguments: arguments))
}
