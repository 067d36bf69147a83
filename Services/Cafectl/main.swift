import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

// cafectl: the operator's and the client's command line. Tails topics, publishes, checks health,
// and plays the phone, the chef and the kiosk against the services' request sockets.

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("cafectl: \(message)\n".utf8))
    exit(code)
}

do {
    var args = try Arguments(Array(CommandLine.arguments.dropFirst()))
    if args.words.isEmpty || args.words.first == "help" || args.flags["help"] != nil {
        print(help)
        exit(0)
    }
    let endpoints = try Endpoints(args)
    switch args.words[0] {
    case "tail":
        exit(try TailCommand.run(&args, endpoints: endpoints))
    case "publish":
        exit(try PublishCommand.run(&args, endpoints: endpoints))
    case "health":
        exit(try HealthCommand.run(&args, endpoints: endpoints))
    case "request":
        exit(try RawRequestCommand.run(&args, endpoints: endpoints))
    case "walk":
        exit(try WalkCommand.run(&args, endpoints: endpoints))
    default:
        let pretty = try args.bool("pretty", default: false)
        try ClientCommands(endpoints: endpoints, context: try Context(), pretty: pretty).run(&args)
    }
} catch let error as UsageError {
    fail(error.description, code: 2)
} catch let error as ServiceError {
    fail("\(error.code): \(error.message)", code: 1)
} catch {
    fail("\(error)", code: 1)
}
