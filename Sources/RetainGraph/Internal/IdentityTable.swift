/// Node ids by object address: an open-addressing hash table (linear probing, Fibonacci hashing),
/// cheaper than `Dictionary` for the walk's one lookup per reference.
struct IdentityTable {
  private var keys: [UInt]
  private var values: [Int32]
  private var mask: Int
  private var shift: Int
  private(set) var count = 0

  init(capacity: Int = 1024) {
    var size = 16
    while size < capacity * 2 { size <<= 1 }
    keys = [UInt](repeating: 0, count: size)
    values = [Int32](repeating: 0, count: size)
    mask = size - 1
    shift = UInt.bitWidth - size.trailingZeroBitCount
  }

  private func slot(for key: UInt) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt(shift))
  }

  subscript(key: UInt) -> Int32? {
    var index = slot(for: key)
    while true {
      let stored = keys[index]
      if stored == key { return values[index] }
      if stored == 0 { return nil }
      index = (index + 1) & mask
    }
  }

  /// Inserts a key that is not in the table (address 0 is never a key).
  mutating func insert(_ key: UInt, _ value: Int32) {
    if (count + 1) * 2 > keys.count { grow() }
    var index = slot(for: key)
    while keys[index] != 0 { index = (index + 1) & mask }
    keys[index] = key
    values[index] = value
    count += 1
  }

  private mutating func grow() {
    let oldKeys = keys
    let oldValues = values
    self = IdentityTable(capacity: oldKeys.count)
    for index in oldKeys.indices where oldKeys[index] != 0 {
      insert(oldKeys[index], oldValues[index])
    }
  }
}
