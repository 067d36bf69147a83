/// A list whose first element is stored in place and the rest on the heap: a device's records
/// and heard beacons are usually one or two, and a heap array costs its 32-byte header and
/// malloc's rounding (80 bytes for one 40-byte record) on top of the element. With the first
/// inline, most devices hold no heap block for the list at all; the rest still grow without a
/// limit of their own (the callers bound them: `DeviceState.heardLimit`, one record per condition).
///
/// Order is kept: index 0 is the inline element, then the heap ones in the order appended.
///
/// A protocol with one concrete type per element (`RecordList`, `HeardList`), not a generic
/// struct: a copy of a generic struct instance (every `for … in`, on the sighting path) was
/// compiled as a call through its type metadata's value witness, a copy of a concrete one as two
/// moves and a retain. Use it through the collection API; `head` and `rest` are its storage.
protocol InlineFirstList: RandomAccessCollection, MutableCollection
where Index == Int, Indices == Range<Int>, Iterator == InlineFirstIterator<Element> {
    /// Element 0; nil only while the list is empty.
    var head: Element? { get set }
    /// Elements 1…; emptied (its buffer released) whenever it holds none.
    var rest: [Element] { get set }
}

extension InlineFirstList {
    var startIndex: Int { 0 }
    var endIndex: Int {
        @inline(__always) get { head == nil ? 0 : 1 + rest.count }
    }
    var indices: Range<Int> { startIndex..<endIndex }
    var isEmpty: Bool { head == nil }

    subscript(position: Int) -> Element {
        @inline(__always) get { position == 0 ? head! : rest[position - 1] }
        // One yield, so the optimizer can inline it (a coroutine that yields in two places is
        // called, frame and all, for every `records[i].field = …`); the element is a few words.
        _modify {
            var element = position == 0 ? head! : rest[position - 1]
            defer {
                if position == 0 {
                    head = element
                } else {
                    rest[position - 1] = element
                }
            }
            yield &element
        }
    }

    /// The inline element, then the heap ones through the array's own iterator.
    @inline(__always)
    func makeIterator() -> InlineFirstIterator<Element> {
        InlineFirstIterator(head: head, rest: rest.makeIterator())
    }

    /// The first index whose element `predicate` accepts (records are looked up by condition on every sighting).
    @inline(__always)
    func firstIndex(where predicate: (Element) throws -> Bool) rethrows -> Int? {
        guard let first = head else { return nil }
        if try predicate(first) { return 0 }
        return try rest.firstIndex(where: predicate).map { $0 + 1 }
    }

    mutating func append(_ element: Element) {
        if head == nil {
            head = element
        } else {
            rest.append(element)
        }
    }

    /// Removes every element `shouldRemove` says to, keeping the others in order. Allocates
    /// nothing when none is removed.
    mutating func removeAll(where shouldRemove: (Element) throws -> Bool) rethrows {
        guard let first = head else { return }
        let dropFirst = try shouldRemove(first)
        if !rest.isEmpty { try rest.removeAll(where: shouldRemove) }
        if dropFirst { head = rest.isEmpty ? nil : rest.removeFirst() }
        if rest.isEmpty, rest.capacity > 0 { rest = [] }
    }
}

/// Iterates an `InlineFirstList`: no index arithmetic or bounds check per element.
struct InlineFirstIterator<Element>: IteratorProtocol {
    fileprivate var head: Element?
    fileprivate var rest: IndexingIterator<[Element]>

    @inline(__always)
    mutating func next() -> Element? {
        if let first = head {
            head = nil
            return first
        }
        return rest.next()
    }
}

/// A device's records (`DeviceState.records`), the first in place.
struct RecordList: InlineFirstList {
    typealias Element = CompactRecord
    var head: CompactRecord?
    var rest: [CompactRecord] = []
}

/// A device's heard beacons (`DeviceState.heard`), the first in place.
struct HeardList: InlineFirstList {
    typealias Element = Heard
    var head: Heard?
    var rest: [Heard] = []
}
