import Foundation

/// The files under `deploy/` that containers are built and run from, read the way Docker reads
/// them, plus what the package's executables say about themselves.
enum DeployFiles {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let deployFolder = repositoryRoot.appendingPathComponent("deploy")

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The executable products Package.swift declares.
    static func products() throws -> [String] {
        let manifest = try text("Package.swift")
        return manifest.matches(of: #/\.executable\(name: "([^"]+)"/#).map { String($0.output.1) }
    }

    /// The first folder of every target path in Package.swift (`Shared`, `Services`, `Tests`).
    static func manifestFolders() throws -> Set<String> {
        let manifest = try text("Package.swift")
        return Set(manifest.matches(of: #/path: "([^"/\\]+)/#).map { String($0.output.1) })
    }

    /// The `CAFE_…` variables an executable reads, from its `--help`. Services print `env CAFE_X`
    /// per option; cafectl prints its endpoint flags, read from `CAFE_<FLAG>_ENDPOINT`.
    static func environmentNames(of executable: String) throws -> Set<String> {
        let bin = try Platform.binaryDirectory()
        let help = try runCommand(bin.appendingPathComponent(executable), executable == "cafectl" ? ["help"] : ["--help"],
                                  environment: environmentWithoutCafeVariables())
        guard help.status == 0 else { throw PlatformError("\(executable) --help exited \(help.status): \(help.err)") }
        if executable == "cafectl" {
            guard help.out.contains("env CAFE_<NAME>_ENDPOINT") else { throw PlatformError("cafectl help no longer documents CAFE_<NAME>_ENDPOINT") }
            let flags = help.out.matches(of: #/--([a-z][a-z-]*) (?:tcp://\S+|:\d+)/#).map { String($0.output.1) }
            // And the variables it names outright ("--keys DIR (env CAFE_KEYS)").
            let named = help.out.matches(of: #/env (CAFE_[A-Z0-9_]*[A-Z0-9])\b/#).map { String($0.output.1) }
            return Set(flags.map { "CAFE_" + $0.uppercased().replacingOccurrences(of: "-", with: "_") + "_ENDPOINT" } + named)
        }
        return Set(help.out.matches(of: #/env (CAFE_[A-Z0-9_]+)/#).map { String($0.output.1) })
    }
}
