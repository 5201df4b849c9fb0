#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Node ids by object address: an open-addressing hash table (linear probing, Fibonacci hashing of
/// the address without its 4 alignment bits), cheaper than `Dictionary` for the walk's one lookup
/// per reference. The slot is the product's top bits, so that growing the table moves each entry
/// of slot `s` to `2s` or `2s + 1` (the rehash streams through both tables). Hashing the whole
/// address clustered on objects allocated at a regular stride: the benchmark's nodes, 288 bytes
/// apart, needed 35 probes per lookup of a new address at 100,000 objects; without the alignment
/// bits, 2. Its slots are whole pages
/// mapped for it, so that its memory goes back to the system as soon as the walk drops it (memory
/// freed to the allocator stays resident, and would add to the peak of the cycle analysis that
/// follows).
final class IdentityTable {
  private var keys: UnsafeMutablePointer<UInt>
  private var values: UnsafeMutablePointer<Int32>
  private var size: Int
  private var mask: Int
  private var shift: Int
  private var region: (start: UnsafeMutableRawPointer, length: Int, mapped: Bool)
  private(set) var count = 0

  init(capacity: Int = 1024) {
    var size = 16
    while size < capacity * 2 { size <<= 1 }
    let slots = Self.slots(size)
    self.size = slots.size
    mask = slots.mask
    shift = slots.shift
    region = slots.region
    keys = slots.keys
    values = slots.values
  }

  /// Zeroed slots for a table of `size` (a power of two), and the hashing constants for it.
  private static func slots(_ size: Int) -> (
    size: Int, mask: Int, shift: Int, region: (start: UnsafeMutableRawPointer, length: Int, mapped: Bool),
    keys: UnsafeMutablePointer<UInt>, values: UnsafeMutablePointer<Int32>
  ) {
    let region = allocate(bytes: size * (MemoryLayout<UInt>.stride + MemoryLayout<Int32>.stride))
    let keys = region.start.bindMemory(to: UInt.self, capacity: size)
    let values = (region.start + size * MemoryLayout<UInt>.stride).bindMemory(to: Int32.self, capacity: size)
    return (size, size - 1, UInt.bitWidth - size.trailingZeroBitCount, region, keys, values)
  }

  deinit { Self.free(region) }

  /// Zeroed memory: mapped pages for large tables, the allocator for small ones.
  private static func allocate(bytes: Int) -> (start: UnsafeMutableRawPointer, length: Int, mapped: Bool) {
    if bytes >= 1 << 20,
      let start = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      start != MAP_FAILED
    {
      return (start, bytes, true)
    }
    let start = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
    start.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
    return (start, bytes, false)
  }

  private static func free(_ region: (start: UnsafeMutableRawPointer, length: Int, mapped: Bool)) {
    if region.mapped {
      munmap(region.start, region.length)
    } else {
      region.start.deallocate()
    }
  }

  private func slot(for key: UInt) -> Int {
    Int(truncatingIfNeeded: ((key &>> 4) &* 0x9E37_79B9_7F4A_7C15) &>> UInt(shift))
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
  func insert(_ key: UInt, _ value: Int32) {
    if (count + 1) * 2 > size { grow() }
    var index = slot(for: key)
    while keys[index] != 0 { index = (index + 1) & mask }
    keys[index] = key
    values[index] = value
    count += 1
  }

  private func grow() {
    let old = (keys: keys, values: values, size: size, region: region)
    (size, mask, shift, region, keys, values) = Self.slots(size * 2)
    count = 0
    for index in 0..<old.size where old.keys[index] != 0 {
      insert(old.keys[index], old.values[index])
    }
    Self.free(old.region)
  }
}
