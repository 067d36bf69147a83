/// A binary min-heap of (deadline, device slot): the region timer's queue.
struct DeadlineHeap {
    /// 16 bytes (a slot as `Int` made it 24): the heap holds an entry per scheduled device,
    /// and more while superseded ones wait to be popped.
    struct Entry {
        var due: Int64
        var slot: UInt32
        var generation: UInt32
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }

    func peek() -> Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].due < entries[parent].due else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].due < entries[smallest].due { smallest = left }
            if right < entries.count, entries[right].due < entries[smallest].due { smallest = right }
            if smallest == parent { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
