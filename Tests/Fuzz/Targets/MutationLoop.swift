import Campus
import Foundation

/// A seeded, deterministic mutation fuzzer: what the test suite runs on every target (a short
/// pass) and `cafe-fuzz run` runs without libFuzzer. The same seed gives the same inputs on every
/// machine, so a finding reproduces from its seed and run number alone.
public struct MutationLoop {
    /// What a run found: the input and what went wrong.
    public struct Finding: CustomStringConvertible {
        public let run: Int
        public let input: Data
        public let problem: String
        public var description: String { "run \(run): \(problem)\ninput (\(input.count) bytes): \(Agreement.text(input))" }
    }

    /// Bits of JSON a mutation splices in: structure, the numbers at every bound the platform
    /// holds (Int64, UInt64, 16 bits, Double), escapes, and names the frames carry.
    static let tokens: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\u{FEFF}", "\\u0000", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\u00e9", "é", "e\u{301}",
        "null", "true", "false", "0", "-0", "1", "-1", "0.5", "1e2", "1E-7", "-0.0e5", "1e400", "5e-324", "1.7976931348623157e308",
        "65535", "65536", "-127", "-128", "1000", "1001", "2147483648",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "\"\"", "{}", "[]", "[[[[[[[[[[[[[[[[", "\"2026-01-01T00:00:00.000Z\"", "\"2020-02-30T00:00:00Z\"", "\"9999-12-31T23:59:59.999+23:59\"",
        "\"op\"", "\"id\"", "\"body\"", "\"v\"", "\"type\"", "\"seq\"", "\"fromSeq\"", "\"deviceId\"", "\"reports\"", "\"sightings\"", "\"fixes\"",
        "\"major\"", "\"minor\"", "\"rssi\"", "\"quantity\"", "\"streams\"", "\"events\"", "\"envelope\"", "\"cafes\"",
        "\"sighting.reported\"", "\"sighting.batch\"", "\"heartbeat\"", "\"order.placed\"", "\"ingest.report\"", "\"replay\"",
        "--", "--help", "--shards", "--shard", "--max-message-bytes", "CAFE_SHARDS=", "=",
    ]

    /// The tokens as a libFuzzer dictionary (`-dict=`): one quoted entry a line, bytes beyond
    /// printable ASCII, quotes and backslashes written as `\xNN`.
    public static var dictionary: String {
        tokens.map { token in
            "\"" + token.utf8.map { byte in
                (0x20..<0x7F).contains(byte) && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
                    ? String(UnicodeScalar(byte)) : String(format: "\\x%02X", byte)
            }.joined() + "\""
        }.joined(separator: "\n") + "\n"
    }

    private var random: SeededRandom

    public init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Runs `target` on `runs` inputs mutated from its seeds (the seeds themselves first); stops
    /// at the first finding.
    public mutating func run(_ target: FuzzTarget, runs: Int) -> Finding? {
        var corpus = target.seeds()
        if corpus.isEmpty { corpus = [Data("{}".utf8)] }
        for (index, seed) in corpus.enumerated() where index < runs {
            if let problem = target.check(seed) { return Finding(run: index, input: seed, problem: problem) }
        }
        for run in corpus.count..<max(runs, corpus.count) {
            let input = mutate(corpus[random.integer(in: 0...(corpus.count - 1))], corpus: corpus)
            if let problem = target.check(input) { return Finding(run: run, input: input, problem: problem) }
            // Keep some mutants, so mutations compound; bounded so the loop stays fast.
            if input.count < 16_384, random.chance(0.05) {
                if corpus.count < 512 { corpus.append(input) } else { corpus[random.integer(in: 0...511)] = input }
            }
        }
        return nil
    }

    /// One to four random edits of `input`.
    mutating func mutate(_ input: Data, corpus: [Data]) -> Data {
        var bytes = [UInt8](input)
        for _ in 0..<random.integer(in: 1...4) {
            let at = bytes.isEmpty ? 0 : random.integer(in: 0...bytes.count)
            switch random.integer(in: 0...8) {
            case 0 where !bytes.isEmpty:
                let i = min(at, bytes.count - 1)
                bytes[i] ^= UInt8(1) << UInt8(random.integer(in: 0...7))
            case 1 where !bytes.isEmpty:
                bytes[min(at, bytes.count - 1)] = UInt8(random.integer(in: 0...255))
            case 2 where !bytes.isEmpty:
                let end = min(bytes.count, at + random.integer(in: 1...16))
                if at < end { bytes.removeSubrange(at..<end) }
            case 3, 4:
                bytes.insert(contentsOf: Array(Self.tokens[random.integer(in: 0...(Self.tokens.count - 1))].utf8), at: at)
            case 5 where !bytes.isEmpty:
                // Copy a stretch of the input elsewhere in it (a member or element repeated).
                let start = random.integer(in: 0...(bytes.count - 1)), length = random.integer(in: 1...min(64, bytes.count - start))
                bytes.insert(contentsOf: Array(bytes[start..<(start + length)]), at: at)
            case 6:
                // Splice: this input up to a point, another from a point.
                let other = [UInt8](corpus[random.integer(in: 0...(corpus.count - 1))])
                let from = other.isEmpty ? 0 : random.integer(in: 0...other.count)
                bytes = Array(bytes[..<min(at, bytes.count)]) + other[from...]
            case 7:
                replaceNumber(&bytes)
            default:
                // Repeat a token many times: long strings, deep nesting, many members.
                let token = Array(Self.tokens[random.integer(in: 0...(Self.tokens.count - 1))].utf8)
                let count = random.chance(0.1) ? random.integer(in: 60...70) : random.integer(in: 2...40)
                bytes.insert(contentsOf: Array([[UInt8]](repeating: token, count: count).joined()), at: at)
            }
        }
        return Data(bytes.prefix(300_000))
    }

    /// Replaces one run of digits with a number token: the bounds are where decoders break.
    private mutating func replaceNumber(_ bytes: inout [UInt8]) {
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        let digits = bytes.indices.filter { isDigit(bytes[$0]) }
        guard !digits.isEmpty else { return }
        var start = digits[random.integer(in: 0...(digits.count - 1))], end = start
        while start > 0, isDigit(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: "-") { start -= 1 }
        while end + 1 < bytes.count, isDigit(bytes[end + 1]) { end += 1 }
        let numbers = Self.tokens.filter { $0.first.map { $0.isNumber || $0 == "-" } == true && $0 != "--" }
        bytes.replaceSubrange(start...end, with: Array(numbers[random.integer(in: 0...(numbers.count - 1))].utf8))
    }
}
