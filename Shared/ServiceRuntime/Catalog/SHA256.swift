import Foundation

/// SHA-256 (FIPS 180-4), for the catalog's digest: Foundation on Linux has no CryptoKit, and an
/// operator compares this with `sha256sum` of the file. One-shot over `SHA256Stream`, which
/// holds the algorithm once for this and for backups fed a chunk at a time.
public enum SHA256 {
    /// The digest of `data` as 64 lower-case hex digits.
    public static func hex(_ data: Data) -> String {
        var stream = SHA256Stream()
        stream.update(data)
        return stream.hex()
    }

    /// The 32-byte digest of `data`.
    public static func digest(_ data: Data) -> [UInt8] {
        var stream = SHA256Stream()
        stream.update(data)
        return stream.digest()
    }
}
