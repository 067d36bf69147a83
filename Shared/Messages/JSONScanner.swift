#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, strict JSON reader over UTF-8 bytes for the hot paths (`FastJSONDecodable`): no
/// Foundation, no intermediate tree. It reads one object's members in order; anything it does not
/// expect makes it give up (nil or false), and the caller falls back to Foundation's decoder, which
/// then either decodes or produces the precise, typed error. So it can only be faster, never more
/// lenient: a member name given twice in one object, anywhere in the frame, makes it give up too.
struct JSONScanner {
    let bytes: UnsafeRawBufferPointer
    var position = 0
    /// Objects and arrays open around the position. Past `maxDepth` the scanner gives up, so hostile
    /// nesting cannot exhaust the stack; Foundation's route then refuses the frame for its depth
    /// before parsing it (the same limit, so both routes take and refuse the same frames).
    var depth = 0
    static let maxDepth = Wire.maxNestingDepth
    /// Names of the members skipped so far in each object being read, innermost object last: one
    /// buffer for the whole frame, so checking names for repeats costs no allocation per object.
    var names: [String] = []
    /// The last two strings read that needed a heap block (over 15 bytes): a sighting batch names
    /// one campus UUID in every sighting, and a repeat is handed out again instead of allocated.
    var recentLong: (String?, String?) = (nil, nil)

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    var atEnd: Bool {
        mutating get {
            skipSpace()
            return position == bytes.count
        }
    }

    @inline(__always)
    mutating func skipSpace() {
        while position < bytes.count {
            let b = bytes[position]
            // Comparisons, not a switch: a jump table at every inlined copy costs mispredicted branches.
            guard b <= 0x20, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            position += 1
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    @inline(__always)
    mutating func expect(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// The next non-space byte, not consumed.
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Iterates an object's members: `member` gets each name and either reads the value (true),
    /// gives up (false), or returns nil for a member it does not know, whose value is then skipped.
    ///
    /// A reader sees a name it knows given twice by finding its slot already filled (`fill`); the
    /// names of skipped members are checked here.
    mutating func object(_ member: (inout JSONScanner, JSONKey) -> Bool?) -> Bool {
        guard expect(UInt8(ascii: "{")), depth < Self.maxDepth else { return false }
        depth += 1
        let base = names.count
        defer {
            depth -= 1
            if names.count > base { names.removeSubrange(base...) }
        }
        if peek() == UInt8(ascii: "}") {
            position += 1
            return true
        }
        var index: Set<String>?
        while true {
            guard let key = key(), expect(UInt8(ascii: ":")) else { return false }
            switch member(&self, key) {
            case true?: break
            case false?: return false
            case nil: guard note(key.text, from: base, &index), skipValue() else { return false }
            }
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "}"))
        }
    }

    /// A member name: its bytes when written plainly (printable ASCII, no escape), which is what
    /// readers match without building a string, or else its text (nil when not valid).
    mutating func key() -> JSONKey? {
        let start = position
        if let plain = plainString({ $0 }) { return JSONKey(plain: plain) }
        position = start
        return string().map(JSONKey.init(decoded:))
    }

    /// Records the name of a skipped member of the object whose names start at `base`; false when
    /// the object already had it. Names compare as Swift strings, as the keys of Foundation's
    /// containers do. A large object switches to a set, so a hostile one stays linear time.
    mutating func note(_ name: String, from base: Int, _ index: inout Set<String>?) -> Bool {
        if index != nil { return index!.insert(name).inserted }
        for i in base..<names.count where names[i] == name { return false }
        names.append(name)
        if names.count - base > 16 { index = Set(names[base...]) }
        return true
    }

    /// Iterates an array's elements: `element` must consume each one.
    mutating func array(_ element: (inout JSONScanner) -> Bool) -> Bool {
        guard expect(UInt8(ascii: "[")), depth < Self.maxDepth else { return false }
        depth += 1
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "]") {
            position += 1
            return true
        }
        while true {
            guard element(&self) else { return false }
            if expect(UInt8(ascii: ",")) { continue }
            return expect(UInt8(ascii: "]"))
        }
    }

    /// An array whose every element `T` reads; nil when one does not, or when it has more than `atMost`.
    mutating func list<T: FastJSONDecodable>(of type: T.Type, atMost limit: Int = .max) -> [T]? {
        var items: [T] = []
        let ok = array { sc in
            guard items.count < limit, let item = T.read(from: &sc) else { return false }
            items.append(item)
            return true
        }
        return ok ? items : nil
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        switch peek() {
        case UInt8(ascii: "t"): return literal("true") ? true : nil
        case UInt8(ascii: "f"): return literal("false") ? false : nil
        default: return nil
        }
    }

    /// `read`'s value for a value in a known layout, which opens `levels` objects or arrays; when
    /// it gives up (nil), the position is put back where it was, for the general reader.
    mutating func inLayout<T>(levels: Int, _ read: (inout JSONScanner) -> T?) -> T? {
        let start = position
        guard depth + levels <= Self.maxDepth, let value = read(&self) else {
            position = start
            return nil
        }
        return value
    }

    /// Consumes `word` (true, false, null, or a run of names and punctuation in a known layout) or fails.
    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= bytes.count, memcmp(bytes.baseAddress! + position, word.utf8Start, count) == 0 else { return false }
        position += count
        return true
    }
}
