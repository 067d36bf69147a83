/// Why a frame could not be decoded: a stable code and a message naming the field.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The same, as a reply error.
    public var serviceError: ServiceError { ServiceError(code, message) }

    public var description: String { "\(code.rawValue): \(message)" }
}
