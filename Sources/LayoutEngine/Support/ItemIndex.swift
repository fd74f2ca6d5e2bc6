/// The model's id index: where each item lives (its section's and chunk's serials), found by a
/// 32-bit hash of its id in an open-addressing table with linear probing. 12 bytes a slot at a
/// load of 0.65 to 0.8, against some 50 bytes an item for a `[String: Key]`.
///
/// The table stores no ids. A slot says "an item whose id has this hash lives in this chunk";
/// callers confirm a candidate by looking the id up in the chunk (`first(hash:where:)`). Two
/// items with the same hash in the same chunk have interchangeable slots, so the index only
/// has to hold the right multiset of (hash, location) pairs: `insert`, `remove` and `replace`
/// name exact pairs.
///
/// Deletion shifts the following run back instead of leaving tombstones, so lookups never slow
/// down as items come and go.
struct ItemIndex: Sendable {
    struct Location: Hashable, Sendable {
        var section: Int32
        var chunk: Int32
    }

    private struct Slot {
        var hash: UInt32
        /// Negative in an empty slot.
        var section: Int32
        var chunk: Int32

        static let empty = Slot(hash: 0, section: -1, chunk: -1)

        var isEmpty: Bool { section < 0 }
        var location: Location { Location(section: section, chunk: chunk) }
    }

    private var slots: [Slot] = []
    private(set) var count = 0

    /// A table fuller than this grows to `targetLoad`: linear probing slows sharply past 0.8.
    static let maximumLoad = 0.8
    static let targetLoad = 0.65

    init() {}

    /// An empty index with room for `count` items without growing, as full as it may be: an
    /// index built in one go is mostly left as it is.
    init(capacity count: Int) {
        grow(toHold: count, load: Self.maximumLoad)
    }

    /// The seeded hash of an id (per process, so clients cannot aim ids at one slot): Swift's
    /// own `String` hash, which hashes the canonical form, so ids that are canonically
    /// equivalent (the same text with combining marks composed or not, U+212A KELVIN SIGN and
    /// "K") hash alike and are one id, as `String` equality has them.
    static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt32 {
        hash(String(decoding: utf8, as: UTF8.self))
    }

    static func hash(_ id: String) -> UInt32 {
        let value = UInt64(UInt(bitPattern: id.hashValue))
        return UInt32(truncatingIfNeeded: value ^ (value >> 32))
    }

    var capacity: Int { slots.count }

    /// The first location stored under `hash` that `matches` accepts.
    ///
    /// - Complexity: O(1) on average.
    func first(hash: UInt32, where matches: (Location) -> Bool) -> Location? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            var position = Self.home(of: hash, capacity: slots.count)
            while !slots[position].isEmpty {
                if slots[position].hash == hash && matches(slots[position].location) { return slots[position].location }
                position = position + 1 == slots.count ? 0 : position + 1
            }
            return nil
        }
    }

    /// Adds a (hash, location) pair; the caller has made sure its item is new.
    mutating func insert(hash: UInt32, _ location: Location) {
        if Double(count + 1) > Double(slots.count) * Self.maximumLoad { grow(toHold: count + 1, load: Self.targetLoad) }
        Self.place(Slot(hash: hash, section: location.section, chunk: location.chunk), in: &slots)
        count += 1
    }

    /// Removes one (hash, location) pair; false when there is none.
    @discardableResult
    mutating func remove(hash: UInt32, _ location: Location) -> Bool {
        guard let position = position(of: hash, location) else { return false }
        count -= 1
        slots.withUnsafeMutableBufferPointer { slots in
            // Backward shift: pull each following slot of the run into the hole unless that
            // would put it before its home.
            var hole = position
            var next = hole
            while true {
                next = next + 1 == slots.count ? 0 : next + 1
                guard !slots[next].isEmpty else { break }
                let home = Self.home(of: slots[next].hash, capacity: slots.count)
                let fromHome = (next - home + slots.count) % slots.count
                let fromHole = (next - hole + slots.count) % slots.count
                if fromHome >= fromHole {
                    slots[hole] = slots[next]
                    hole = next
                }
            }
            slots[hole] = .empty
        }
        return true
    }

    /// Points one (hash, `old`) pair at `new`: an item that moved to another chunk.
    mutating func replace(hash: UInt32, _ old: Location, with new: Location) {
        guard let position = position(of: hash, old) else { preconditionFailure("no such item in the index") }
        slots[position].section = new.section
        slots[position].chunk = new.chunk
    }

    // MARK: Private

    /// Multiply-shift instead of a modulo: any table size works, so a table is sized to its
    /// items instead of to the next power of two.
    private static func home(of hash: UInt32, capacity: Int) -> Int {
        Int((UInt64(hash) &* UInt64(capacity)) >> 32)
    }

    private func position(of hash: UInt32, _ location: Location) -> Int? {
        guard !slots.isEmpty else { return nil }
        var position = Self.home(of: hash, capacity: slots.count)
        while !slots[position].isEmpty {
            let slot = slots[position]
            if slot.hash == hash && slot.section == location.section && slot.chunk == location.chunk { return position }
            position = position + 1 == slots.count ? 0 : position + 1
        }
        return nil
    }

    private static func place(_ slot: Slot, in slots: inout [Slot]) {
        slots.withUnsafeMutableBufferPointer { slots in
            var position = home(of: slot.hash, capacity: slots.count)
            while !slots[position].isEmpty { position = position + 1 == slots.count ? 0 : position + 1 }
            slots[position] = slot
        }
    }

    private mutating func grow(toHold total: Int, load: Double) {
        let capacity = max(8, Int((Double(total) / load).rounded(.up)))
        var grown = [Slot](repeating: .empty, count: capacity)
        for slot in slots where !slot.isEmpty { Self.place(slot, in: &grown) }
        slots = grown
    }
}
