import Foundation

/// Each of Wire's routes on its own, for the differential fuzz targets (`Tests/Fuzz`), which must
/// hold them to agreeing without `@testable` (the fuzzers are built optimized). Not for services:
/// they decode through `Wire.decode…`, which picks the route.
@_spi(Routes)
extension Wire {
    /// What `T`'s hand-written reader makes of `frame`: nil when `T` has none or it gives up.
    public static func readerRoute<T: Decodable>(_ type: T.Type, from frame: Data) -> T? {
        fastDecode(T.self, from: frame)
    }

    /// Foundation's route alone, with its checks (nesting, repeated names) and its typed errors.
    public static func foundationRoute<T: Decodable>(_ type: T.Type, from frame: Data, malformed: ErrorCode) throws(WireError) -> T {
        try decodeGeneric(T.self, from: frame, malformed: malformed)
    }

    /// JSONEncoder's bytes for `value`, bypassing any hand-written writer.
    public static func foundationEncoding<T: Encodable>(_ value: T) -> Data {
        encodeGeneric(value)
    }
}
