/// Object addresses → their index in a search's population (a million entries for a million live
/// objects): open addressing with linear probing on a multiplicative hash of the address, at most
/// three quarters full (a million entries take 32 MB of slots, not 64: at this size the table's
/// first touch, page by page, costs more than a longer probe). A `[UInt: Int]` hashed each address with SipHash, at every insert
/// and at every word of global storage the search looks up.
struct AddressIndex {
  /// An address (0: an empty slot; no object is at address 0) and its index, side by side (one
  /// cache line per probe).
  private struct Slot {
    var key: UInt
    var value: Int
  }

  private var slots: [Slot]
  private var shift: UInt64
  private var count = 0

  /// An index for `capacity` entries without growing.
  init(capacity: Int) {
    var bits: UInt64 = 4
    while 3 * (1 << bits) < 4 * max(capacity, 1) { bits += 1 }
    slots = [Slot](repeating: Slot(key: 0, value: 0), count: 1 << bits)
    shift = 64 - bits
  }

  /// A page's addresses go to one run of slots (its 16-byte granules in order), the pages to runs
  /// spread by a multiplicative hash: the census's records come in allocation order, and objects
  /// allocated together share pages, so inserting and looking them up touches a few runs, not a
  /// slot anywhere per object.
  private func slot(of address: UInt) -> Int {
    let page = Int(truncatingIfNeeded: (UInt64(address >> 12) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    return (page &+ Int((address >> 4) & 0xFF)) & (slots.count - 1)
  }

  /// The index of `address`, or nil.
  subscript(address: UInt) -> Int? {
    let mask = slots.count - 1
    var position = slot(of: address)
    while true {
      let slot = slots[position]
      if slot.key == address { return slot.value }
      if slot.key == 0 { return nil }
      position = (position + 1) & mask
    }
  }

  /// Records `address` (not 0) at `index`, replacing an earlier index of the same address.
  mutating func insert(_ address: UInt, index: Int) {
    if 4 * (count + 1) > 3 * slots.count { grow() }
    let mask = slots.count - 1
    var position = slot(of: address)
    while slots[position].key != 0 && slots[position].key != address { position = (position + 1) & mask }
    if slots[position].key == 0 { count += 1 }
    slots[position] = Slot(key: address, value: index)
  }

  private mutating func grow() {
    var larger = AddressIndex(capacity: slots.count)
    for slot in slots where slot.key != 0 { larger.insert(slot.key, index: slot.value) }
    self = larger
  }
}
