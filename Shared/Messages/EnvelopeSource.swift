import Foundation

/// Reads an envelope's `source` without decoding the envelope: the bus checks it on every
/// publication, on the hot path, so it walks the frame once and builds no other value.
///
/// It reads `source` exactly as the consumers' decoders do, or gives up: the top-level object's
/// members in any order (our encoder writes `body` first, skipped at word speed), a member name
/// written with escapes counts under its decoded name, a name given twice anywhere in the frame
/// gives up (consumers refuse such frames too), and so does anything after the object. Giving up
/// is safe for the bus: it drops what it cannot read.
public enum EnvelopeSource {
    /// The `source` string of an envelope frame; nil when the frame is not one JSON object with
    /// exactly one string-valued `source` member, nor a compact frame whose head reads.
    public static func read(_ frame: UnsafeRawBufferPointer) -> String? {
        if frame.first == 0x00 { return CompactSightingBatch.source(frame) }
        var scanner = JSONScanner(frame)
        var source: String?
        let ok = scanner.object { sc, key in
            switch key {
            case "source":
                // Given twice: consumers refuse the frame, and which one counts is not for us to pick.
                guard source == nil, let value = sc.string() else { return false }
                source = value
                return true
            default: return nil
            }
        }
        guard ok, scanner.atEnd else { return nil }
        return source
    }

    /// `read` over a `Data` frame.
    public static func read(_ frame: Data) -> String? {
        frame.withUnsafeBytes { read($0) }
    }
}
