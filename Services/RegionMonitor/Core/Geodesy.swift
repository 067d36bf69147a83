#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Distances on the Earth's surface (haversine on the mean radius): good to well under a metre
/// at café scale, which is far inside any fix's uncertainty.
enum Geodesy {
    static let earthRadius = 6_371_008.8

    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let toRadians = Double.pi / 180
        let dLat = (lat2 - lat1) * toRadians, dLon = (lon2 - lon1) * toRadians
        let sLat = sin(dLat / 2), sLon = sin(dLon / 2)
        let a = sLat * sLat + cos(lat1 * toRadians) * cos(lat2 * toRadians) * sLon * sLon
        return 2 * earthRadius * asin(min(1, a.squareRoot()))
    }
}
