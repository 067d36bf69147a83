import Foundation
import FuzzTargets

// libFuzzer's entry points, linked by deploy/fuzz.sh into a binary whose `main` is libFuzzer's
// (so it is no SwiftPM target: SwiftPM would link it without one). CAFE_FUZZ_TARGET names the
// target; a report from it becomes a crash, which libFuzzer saves and stops on.

nonisolated(unsafe) private var target: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let name = ProcessInfo.processInfo.environment["CAFE_FUZZ_TARGET"] ?? ""
    guard let made = FuzzTargets.make(name) else {
        FileHandle.standardError.write(Data("CAFE_FUZZ_TARGET must be one of \(FuzzTargets.names.joined(separator: ", ")), not \"\(name.prefix(64))\"\n".utf8))
        exit(2)
    }
    target = made
    // deploy/fuzz.sh's first call: write the seed corpus and the dictionary, then stop.
    if let directory = ProcessInfo.processInfo.environment["CAFE_FUZZ_PREPARE"] {
        let corpus = URL(fileURLWithPath: directory).appendingPathComponent("corpus")
        do {
            try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
            for (index, seed) in made.seeds().enumerated() {
                try seed.write(to: corpus.appendingPathComponent(String(format: "seed-%03d", index)))
            }
            try Data(MutationLoop.dictionary.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent("tokens.dict"))
        } catch {
            FileHandle.standardError.write(Data("cannot prepare \(directory): \(error)\n".utf8))
            exit(2)
        }
        exit(0)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target else { return 0 }
    let input = data.map { Data(bytes: $0, count: size) } ?? Data()
    if let problem = target.check(input) { fatalError("\(target.name): \(problem)") }
    return 0
}
