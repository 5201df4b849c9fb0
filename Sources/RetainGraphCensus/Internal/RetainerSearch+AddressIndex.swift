/// Object addresses → their index in a search's population (a million entries for a million live
/// objects): open addressing with linear probing on a multiplicative hash of the address, twice as
/// many slots as entries at most. A `[UInt: Int]` hashed each address with SipHash, at every insert
/// and at every word of global storage the search looks up.
struct AddressIndex {
  /// The addresses (0: an empty slot; no object is at address 0).
  private var keys: [UInt]
  private var values: [Int]
  private var shift: UInt64
  private var count = 0

  /// An index for `capacity` entries without growing.
  init(capacity: Int) {
    var bits: UInt64 = 4
    while (1 << bits) < 2 * max(capacity, 1) { bits += 1 }
    keys = [UInt](repeating: 0, count: 1 << bits)
    values = [Int](repeating: 0, count: 1 << bits)
    shift = 64 - bits
  }

  private func slot(of address: UInt) -> Int {
    Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// The index of `address`, or nil.
  subscript(address: UInt) -> Int? {
    let mask = keys.count - 1
    var position = slot(of: address)
    while true {
      let key = keys[position]
      if key == address { return values[position] }
      if key == 0 { return nil }
      position = (position + 1) & mask
    }
  }

  /// Records `address` (not 0) at `index`, replacing an earlier index of the same address.
  mutating func insert(_ address: UInt, index: Int) {
    if 2 * (count + 1) > keys.count { grow() }
    let mask = keys.count - 1
    var position = slot(of: address)
    while keys[position] != 0 && keys[position] != address { position = (position + 1) & mask }
    if keys[position] == 0 { count += 1 }
    keys[position] = address
    values[position] = index
  }

  private mutating func grow() {
    var larger = AddressIndex(capacity: keys.count)
    for (position, key) in keys.enumerated() where key != 0 {
      larger.insert(key, index: values[position])
    }
    self = larger
  }
}
