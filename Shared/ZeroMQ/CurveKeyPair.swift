import CZeroMQ

/// A CURVE key pair in Z85 text (40 characters each), as `zmq_curve_keypair` makes it.
public struct CurveKeyPair: Sendable, Equatable {
    public let publicKey: String
    public let secretKey: String

    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// A fresh random key pair; fails when libzmq was built without CURVE.
    public static func generate() throws(ZeroMQError) -> CurveKeyPair {
        var pub = [CChar](repeating: 0, count: 41)
        var sec = [CChar](repeating: 0, count: 41)
        if zmq_curve_keypair(&pub, &sec) != 0 { throw .last("zmq_curve_keypair") }
        return CurveKeyPair(
            publicKey: pub.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
            secretKey: sec.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}
