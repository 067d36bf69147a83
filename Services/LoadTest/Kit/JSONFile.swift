import Foundation

/// Writes `value` to the `--json` file at `path`: pretty-printed, keys sorted, so two runs diff line by line.
func writeJSON(_ value: some Encodable, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(value).write(to: URL(fileURLWithPath: path))
}
