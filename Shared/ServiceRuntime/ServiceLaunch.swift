import Foundation

/// What every service's `main` does, written once: read the configuration (help and exit 0, or
/// one JSON line and exit 2), read the service's settings from it (exit 2 when they do not fit
/// together), then build the host, start the service on it and run until a signal (one JSON line
/// and exit 1 when that fails). A `main` says only what is its own: its options, its settings and
/// how its service is built.
///
/// Ownership runs one way: the host keeps the service it runs; the service holds the parts it
/// uses, never the host; the parts' handlers point back at the service without holding it.
public struct ServiceLaunch<Settings> {
    /// The common options, which name the service.
    public let options: CommonOptions
    /// The configuration, read from flags, environment and defaults.
    public let config: Configuration
    /// The service's own settings, read from `config`.
    public let settings: Settings
    /// Where start errors go: one JSON line on stderr, as every other log line.
    public let startLog: Logger

    /// Reads the configuration against `specs` and the settings from it; on `--help` or a
    /// configuration the service cannot run with the process ends here (0 or 2).
    public init(_ options: CommonOptions, summary: String, specs: [OptionSpec], settings read: (Configuration) throws -> Settings) {
        self.options = options
        config = loadConfiguration(program: options.service, summary: summary, specs: specs)
        startLog = Logger(service: options.service, instance: config[options.instance])
        do {
            settings = try read(config)
        } catch {
            startLog.exitStart("invalid configuration", error: error, status: 2)
        }
    }

    /// Builds the host, lets `start` build and start the service on it, and runs it until SIGTERM
    /// or SIGINT; a failure to build or start ends the process with status 1.
    public func run(_ start: (ServiceHost, Settings) throws -> AnyObject) {
        do {
            let host = try ServiceHost(options: options, config: config)
            let service: AnyObject
            do {
                service = try start(host, settings)
            } catch {
                // A damaged file makes the restore fail too: the check's verdict says why.
                try host.confirmStorage()
                throw error
            }
            try host.confirmStorage()
            host.run(service)
        } catch {
            startLog.exitStart("start failed", error: error, status: 1)
        }
    }
}
