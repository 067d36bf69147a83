import Foundation

/// One service of `deploy/docker-compose.yml`.
struct ComposeService {
    /// `published` on the host (with the host address, if any) forwards to `container`.
    struct Port: Equatable {
        let hostAddress: String?
        let published: Int
        let container: Int
    }

    /// `source:target[:mode]`: a named volume or a bind mount (source starting with `.` or `/`).
    struct Mount {
        let source: String
        let target: String
        let readOnly: Bool
        var isNamedVolume: Bool { !source.hasPrefix(".") && !source.hasPrefix("/") }
    }

    let name: String
    let value: YAMLValue

    var image: String? { value["image"]?.string }
    var entrypoint: [String]? { value["entrypoint"]?.strings }
    var command: [String]? { value["command"]?.strings }
    /// The executable the container runs: the entrypoint's first word, else the command's.
    var executable: String? { entrypoint?.first ?? command?.first }
    /// The arguments after the executable: the rest of the entrypoint and then the command, or the rest of the command.
    var arguments: [String] {
        if let entrypoint { return Array(entrypoint.dropFirst()) + (command ?? []) }
        return Array((command ?? []).dropFirst())
    }
    var profiles: [String] { value["profiles"]?.strings ?? [] }
    /// A long-running part of the platform (not a tool started on demand under a profile), other
    /// than the HTTP front (the edge and Pushpin, held to their own rules by ComposeFrontTests).
    var isPlatformService: Bool { profiles.isEmpty && !isFront }
    /// The HTTP front: the edge (a product of the campus image) and Pushpin (its own image).
    var isFront: Bool { executable == "edge" || isPushpin }
    /// Pushpin, from the image deploy/pushpin builds (no Campus Café executable in it).
    var isPushpin: Bool { executable == "campus-cafe-pushpin" }
    /// Prometheus (profile observability), from the image deploy/prometheus builds.
    var isPrometheus: Bool { executable == "prometheus" }
    /// An image of its own with no Campus Café executable in it: Pushpin's or Prometheus's.
    var isOwnImage: Bool { isPushpin || isPrometheus }
    /// The tool that makes and changes the key folder (`cafectl keys …`), the one service that mounts it writable.
    var isKeyKeeper: Bool { executable == "cafectl" && arguments.first == "keys" }

    /// `environment:` as a mapping, or as a list of `KEY=value`.
    var environment: [String: String] {
        if let pairs = value["environment"]?.pairs {
            return Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value.string ?? "") })
        }
        let items = value["environment"]?.strings ?? []
        return Dictionary(uniqueKeysWithValues: items.map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        })
    }

    var ports: [Port] {
        (value["ports"]?.strings ?? []).compactMap { text in
            let parts = text.split(separator: "/")[0].split(separator: ":").map(String.init)
            switch parts.count {
            case 2: return Int(parts[0]).flatMap { published in Int(parts[1]).map { Port(hostAddress: nil, published: published, container: $0) } }
            case 3: return Int(parts[1]).flatMap { published in Int(parts[2]).map { Port(hostAddress: parts[0], published: published, container: $0) } }
            default: return nil
            }
        }
    }

    var mounts: [Mount] {
        (value["volumes"]?.strings ?? []).map { text in
            let parts = text.split(separator: ":").map(String.init)
            return Mount(source: parts[0], target: parts.count > 1 ? parts[1] : parts[0], readOnly: parts.count > 2 && parts[2].split(separator: ",").contains("ro"))
        }
    }

    /// `healthcheck.test` in exec form (`["CMD", …]`).
    var healthcheck: [String]? { value["healthcheck"]?["test"]?.strings }

    /// `depends_on` targets with their condition (nil for the short list form).
    var dependsOn: [String: String?] {
        if let pairs = value["depends_on"]?.pairs {
            return Dictionary(uniqueKeysWithValues: pairs.map { ($0.key, $0.value["condition"]?.string) })
        }
        return Dictionary(uniqueKeysWithValues: (value["depends_on"]?.strings ?? []).map { ($0, nil as String?) })
    }

    /// The ports this container binds: every `tcp://0.0.0.0:<port>` or `tcp://*:<port>` it is told to listen on.
    var boundPorts: Set<Int> {
        Set(environment.values.compactMap { value in
            guard let match = value.wholeMatch(of: #/tcp://(?:0\.0\.0\.0|\*):(\d+)/#) else { return nil }
            return Int(match.output.1)
        })
    }
}

/// `deploy/docker-compose.yml`, parsed.
struct ComposeFile {
    let document: YAMLValue
    let services: [ComposeService]

    static func load() throws -> ComposeFile {
        let document = try YAMLSubset.parse(try DeployFiles.text("deploy/docker-compose.yml"))
        guard let pairs = document["services"]?.pairs else { throw PlatformError("docker-compose.yml has no services mapping") }
        return ComposeFile(document: document, services: pairs.map { ComposeService(name: $0.key, value: $0.value) })
    }

    func service(_ name: String) -> ComposeService? { services.first { $0.name == name } }
    var declaredVolumes: [String] { document["volumes"]?.keys ?? [] }
}
