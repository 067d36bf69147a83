import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

// cafectl: the operator's and the client's command line. Tails topics, publishes, checks health,
// manages the campus keys, and plays the phone, the chef and the kiosk against the services'
// request sockets, as the plain-mode developer or, with --keys DIR --as NAME, as principal NAME.

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("cafectl: \(message)\n".utf8))
    exit(code)
}

var identity: Identity?
var arguments: CommandArguments?
do {
    let args = try CommandArguments.cafectl(Array(CommandLine.arguments.dropFirst()))
    arguments = args
    if args.words.isEmpty || args.words.first == "help" {
        print(help)
        exit(0)
    }
    if args.words[0] == "keys" { exit(try KeysCommand.run(args)) }
    if args.words[0] == "restore" { exit(try RestoreCommand.run(args)) }
    // Who cafectl is and where the services are: the same flags on every command, read before
    // the command is known; the command's own read refuses what neither takes.
    let shared = try args.values(taking: Endpoints.flags, refusingOthers: false)
    identity = try Identity(shared)
    let endpoints = Endpoints(shared, identity: identity!)
    switch args.words[0] {
    case "tail":
        exit(try TailCommand.run(args, endpoints: endpoints))
    case "publish":
        exit(try PublishCommand.run(args, endpoints: endpoints))
    case "health":
        exit(try HealthCommand.run(args, endpoints: endpoints))
    case "backup":
        exit(try BackupCommand.run(args, endpoints: endpoints))
    case "request":
        exit(try RawRequestCommand.run(args, endpoints: endpoints))
    case "walk":
        exit(try WalkCommand.run(args, endpoints: endpoints))
    default:
        let pretty = try args.values(taking: [ClientCommands.prettySwitch], refusingOthers: false)[ClientCommands.pretty]
        try ClientCommands(endpoints: endpoints, context: try Context(), pretty: pretty).run(args)
    }
} catch let request as CommandHelp {
    print(request.text(arguments?.words ?? []))
    exit(0)
} catch where arguments?.helpRequested == true {
    // --help before the command could be told apart (no such command, too few words): all of it.
    print(help)
    exit(0)
} catch let error as UsageError {
    fail(error.description, code: 2)
} catch let error as ConfigurationError {
    fail(error.message, code: 2)
} catch let error as ServiceError where error.code == ErrorCode.clientTimeout.rawValue && identity?.isDeployed == true {
    // A CURVE handshake the server refuses never completes: the client sees only silence.
    fail("\(error.code): \(error.message) (deployed mode: a server that does not hold the key of \(identity!.description), or an endpoint naming the wrong server, looks the same; see cafectl keys list)", code: 1)
} catch let error as ServiceError {
    fail("\(error.code): \(error.message)", code: 1)
} catch let error as SecurityError {
    fail(error.message, code: 1)
} catch {
    fail("\(error)", code: 1)
}
