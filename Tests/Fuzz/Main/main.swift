import Foundation
import FuzzTargets

// cafe-fuzz: the fuzz targets without libFuzzer (deploy/fuzz.sh builds them with it). Runs the
// seeded mutation loop, writes seed corpora, replays inputs a fuzzer saved.

let usage = """
    usage: cafe-fuzz list
           cafe-fuzz run <target>|all [--runs N] [--seed S]   the seeded mutation loop (default 100000 runs, seed 1)
           cafe-fuzz seeds <target> <directory>              write the target's seed corpus
           cafe-fuzz replay <target> <file>…                 run saved inputs (a libFuzzer crash file) once each
    targets: \(FuzzTargets.names.joined(separator: ", "))
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func target(_ name: String) -> FuzzTarget {
    guard let made = FuzzTargets.make(name) else { fail("cafe-fuzz: unknown target \"\(name.prefix(64))\"\n\(usage)") }
    return made
}

/// The value of `--name` in `arguments`, or `fallback`.
func option(_ name: String, in arguments: [String], default fallback: UInt64) -> UInt64 {
    guard let index = arguments.firstIndex(of: "--\(name)") else { return fallback }
    guard index + 1 < arguments.count, let value = UInt64(arguments[index + 1]) else { fail("cafe-fuzz: --\(name) needs a whole number") }
    return value
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "list":
    for name in FuzzTargets.names { print("\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(target(name).summary)") }
case "run":
    guard arguments.count >= 2 else { fail(usage) }
    let runs = Int(clamping: option("runs", in: arguments, default: 100_000)), seed = option("seed", in: arguments, default: 1)
    var failed = false
    for name in arguments[1] == "all" ? FuzzTargets.names : [arguments[1]] {
        let fuzzed = target(name)
        let started = Date()
        var loop = MutationLoop(seed: seed)
        if let finding = loop.run(fuzzed, runs: runs) {
            print("\(name): FOUND after \(String(format: "%.1f", Date().timeIntervalSince(started))) s, seed \(seed), \(finding)")
            let file = "crash-\(name)-\(seed)-\(finding.run)"
            try? finding.input.write(to: URL(fileURLWithPath: file))
            print("\(name): input saved as \(file) (cafe-fuzz replay \(name) \(file))")
            failed = true
        } else {
            print("\(name): \(runs) runs, seed \(seed), no finding, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        }
    }
    exit(failed ? 1 : 0)
case "seeds":
    guard arguments.count == 3 else { fail(usage) }
    let directory = URL(fileURLWithPath: arguments[2])
    do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let seeds = target(arguments[1]).seeds()
        for (index, seed) in seeds.enumerated() {
            try seed.write(to: directory.appendingPathComponent(String(format: "seed-%03d", index)))
        }
        print("\(arguments[1]): \(seeds.count) seeds in \(directory.path)")
    } catch {
        fail("cafe-fuzz: \(error)")
    }
case "replay":
    guard arguments.count >= 3 else { fail(usage) }
    let fuzzed = target(arguments[1])
    var failed = false
    for path in arguments.dropFirst(2) {
        guard let input = FileManager.default.contents(atPath: path) else { fail("cafe-fuzz: cannot read \(path)") }
        if let problem = fuzzed.check(input) {
            print("\(path): \(problem)")
            failed = true
        } else {
            print("\(path): ok")
        }
    }
    exit(failed ? 1 : 0)
default:
    print(usage)
    exit(arguments.isEmpty || arguments.first == "--help" ? 0 : 2)
}
