/// Why a tnetstring was refused: a stable code and a message naming the byte offset.
public struct TNetStringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable reasons a decoder refuses input; each limit has its own, so a refusal says which.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Not a tnetstring: a length that is not digits, no `:`, an unknown tag, bytes after the value.
        public static let malformed = Code(rawValue: "tnetstring.malformed")
        /// The input ended inside a value.
        public static let truncated = Code(rawValue: "tnetstring.truncated")
        /// The whole input is longer than `maxBytes`.
        public static let tooLarge = Code(rawValue: "tnetstring.tooLarge")
        /// Lists and dictionaries nest deeper than `maxDepth`.
        public static let tooDeep = Code(rawValue: "tnetstring.tooDeep")
        /// More than `maxElements` values in the whole input.
        public static let tooManyElements = Code(rawValue: "tnetstring.tooManyElements")
        /// A string longer than `maxStringBytes`.
        public static let stringTooLong = Code(rawValue: "tnetstring.stringTooLong")
        /// A length prefix, integer or float longer than `maxNumberBytes` digits.
        public static let numberTooLong = Code(rawValue: "tnetstring.numberTooLong")
        /// An integer outside Int64, a float that is not a finite decimal, a boolean other than true/false.
        public static let invalidScalar = Code(rawValue: "tnetstring.invalidScalar")
        /// A dictionary key that is not a UTF-8 string, or a key given twice.
        public static let invalidKey = Code(rawValue: "tnetstring.invalidKey")
    }

    public let code: Code
    public let message: String
    /// Where in the input the problem was found.
    public let offset: Int

    /// A refusal at byte `offset`.
    public init(_ code: Code, _ message: String, at offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(code.rawValue) at byte \(offset): \(message)" }
}

/// The bounds a decoder holds every input to, checked as it reads, before anything is copied.
public struct TNetStringLimits: Sendable, Equatable {
    public var maxBytes: Int
    /// Lists and dictionaries inside one another; the outermost counts as 1.
    public var maxDepth: Int
    /// Values in the whole input, keys and containers included.
    public var maxElements: Int
    public var maxStringBytes: Int
    /// Digits of a length prefix, and characters of an integer or float.
    public var maxNumberBytes: Int

    /// Limits as given; numbers default to 20 characters (a 64-bit integer's).
    public init(maxBytes: Int, maxDepth: Int, maxElements: Int, maxStringBytes: Int, maxNumberBytes: Int = 20) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxStringBytes = maxStringBytes
        self.maxNumberBytes = maxNumberBytes
    }

    /// Room for one zmq-http request as Pushpin sends it in req mode: a body up to its own 1 MB
    /// buffer (`REQ_BUF_MAX`), headers, and the few small members around them.
    public static let zhttp = TNetStringLimits(maxBytes: 1_200_000, maxDepth: 8, maxElements: 2_048, maxStringBytes: 1_048_576)
}
