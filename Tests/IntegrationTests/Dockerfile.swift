import Foundation

/// A Dockerfile as a list of stages, with line continuations joined, comments dropped and the
/// global `ARG` defaults substituted into `FROM`.
struct Dockerfile {
    struct Instruction {
        let keyword: String
        let arguments: String
    }

    struct Stage {
        let image: String
        let name: String?
        var instructions: [Instruction] = []

        func all(_ keyword: String) -> [String] { instructions.filter { $0.keyword == keyword }.map(\.arguments) }
        /// Every package named after `apt-get install` in the stage's RUN instructions.
        var aptPackages: Set<String> {
            var packages = Set<String>()
            for run in all("RUN") {
                for command in run.split(separator: "&&") {
                    let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
                    guard let install = words.firstIndex(of: "install"), words[..<install].contains(where: { $0.hasSuffix("apt-get") || $0 == "apt" }) else { continue }
                    packages.formUnion(words[(install + 1)...].filter { !$0.hasPrefix("-") && $0 != "\\" })
                }
            }
            return packages
        }
    }

    let globalArguments: [String: String]
    let stages: [Stage]

    static func load(_ relativePath: String = "deploy/Dockerfile") throws -> Dockerfile {
        var logical: [String] = []
        var pending = ""
        for raw in try DeployFiles.text(relativePath).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                pending += String(line.dropLast()) + " "
                continue
            }
            let joined = (pending + line).trimmingCharacters(in: .whitespaces)
            pending = ""
            if !joined.isEmpty { logical.append(joined) }
        }
        var arguments: [String: String] = [:]
        var stages: [Stage] = []
        for line in logical {
            let keyword = String(line.prefix { !$0.isWhitespace }).uppercased()
            let rest = line.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
            if keyword == "FROM" {
                let words = rest.split(whereSeparator: \.isWhitespace).map(String.init).filter { !$0.hasPrefix("--") }
                let name = words.count >= 3 && words[1].uppercased() == "AS" ? words[2] : nil
                stages.append(Stage(image: substitute(words[0], arguments), name: name))
            } else if stages.isEmpty {
                if keyword == "ARG" {
                    let parts = rest.split(separator: "=", maxSplits: 1).map(String.init)
                    arguments[parts[0]] = parts.count > 1 ? parts[1] : ""
                }
            } else {
                stages[stages.count - 1].instructions.append(Instruction(keyword: keyword, arguments: rest))
            }
        }
        return Dockerfile(globalArguments: arguments, stages: stages)
    }

    private static func substitute(_ text: String, _ arguments: [String: String]) -> String {
        var result = text
        for (name, value) in arguments {
            result = result.replacingOccurrences(of: "${\(name)}", with: value).replacingOccurrences(of: "$\(name)", with: value)
        }
        return result
    }

    /// The Debian or Ubuntu release an image tag names (`swift:6.3-bookworm` → bookworm).
    static func release(of image: String) -> String? {
        let releases = ["buster", "bullseye", "bookworm", "trixie", "focal", "jammy", "noble"]
        let tag = image.split(separator: ":").last.map(String.init) ?? ""
        return releases.first { tag.split(separator: "-").contains(Substring($0)) }
    }
}
