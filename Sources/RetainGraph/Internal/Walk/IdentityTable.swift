internal import RetainGraphSupport

#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif

/// Node ids by object address: an open-addressing hash table (linear probing, Fibonacci hashing of
/// the address without its 4 alignment bits), cheaper than `Dictionary` for the walk's one lookup
/// per reference. The slot is the product's top bits. Hashing the whole address clustered on
/// objects allocated at a regular stride: the benchmark's nodes, 288 bytes apart, needed 35 probes
/// per lookup of a new address at 100,000 objects; without the alignment bits, 2.
///
/// A slot is 8 bytes: the node id (plus one; 0 is an empty slot) and 32 bits of the address's
/// hash, which turn away most other addresses without reading the node's address. The addresses
/// themselves are the walk's list of nodes' addresses (the recorder's, passed in), not a copy: 8
/// bytes a slot instead of 12 (a million objects: 16 MB of slots instead of 25).
///
/// Its slots are whole pages mapped for it, so that its memory goes back to the system as soon as
/// the walk drops it (memory freed to the allocator stays resident, and would add to the peak of
/// the cycle analysis that follows).
final class IdentityTable {
  private var slots: UnsafeMutablePointer<UInt64>
  private var size: Int
  private var mask: Int
  private var shift: Int
  private var region: (start: UnsafeMutableRawPointer, length: Int, mapped: Bool)
  private(set) var count = 0

  init(capacity: Int = 1024) {
    var size = 16
    while size < capacity * 2 { size <<= 1 }
    let made = Self.slots(size)
    self.size = made.size
    mask = made.mask
    shift = made.shift
    region = made.region
    slots = made.slots
  }

  /// Zeroed slots for a table of `size` (a power of two), and the hashing constants for it.
  private static func slots(_ size: Int) -> (
    size: Int, mask: Int, shift: Int, region: (start: UnsafeMutableRawPointer, length: Int, mapped: Bool),
    slots: UnsafeMutablePointer<UInt64>
  ) {
    let region = allocate(bytes: size * MemoryLayout<UInt64>.stride)
    let slots = region.start.bindMemory(to: UInt64.self, capacity: size)
    return (size, size - 1, UInt.bitWidth - size.trailingZeroBitCount, region, slots)
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

  /// The address's hash: the slot is its top bits, the check its low 32.
  private static func hash(_ key: UInt) -> UInt { (key &>> 4) &* 0x9E37_79B9_7F4A_7C15 }

  /// The node whose address is `key`, where `addresses[id]` is node `id`'s address.
  @inline(__always)
  func node(at key: UInt, addresses: ChunkedArray<UInt>) -> Int32? {
    let hash = Self.hash(key)
    let check = UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF
    var index = Int(truncatingIfNeeded: hash &>> UInt(shift))
    while true {
      let stored = slots[index]
      if stored == 0 { return nil }
      if stored &>> 32 == check {
        let node = Int32(truncatingIfNeeded: stored & 0xFFFF_FFFF) &- 1
        if addresses[Int(node)] == key { return node }
      }
      index = (index + 1) & mask
    }
  }

  /// Inserts node `node`, whose address `key` is not in the table (address 0 is never a key), before
  /// it is appended to `addresses` (which holds the addresses of nodes `0..<node`).
  func insert(_ key: UInt, node: Int32, addresses: ChunkedArray<UInt>) {
    if (count + 1) * 2 > size { grow(addresses) }
    place(key, node)
    count += 1
  }

  @inline(__always)
  private func place(_ key: UInt, _ node: Int32) {
    let hash = Self.hash(key)
    var index = Int(truncatingIfNeeded: hash &>> UInt(shift))
    while slots[index] != 0 { index = (index + 1) & mask }
    slots[index] =
      (UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF) << 32 | UInt64(UInt32(bitPattern: node &+ 1))
  }

  /// Doubles the table: every node's address is placed again, in node order.
  private func grow(_ addresses: ChunkedArray<UInt>) {
    let old = region
    (size, mask, shift, region, slots) = Self.slots(size * 2)
    for node in addresses.indices {
      let key = addresses[node]
      if key != 0 { place(key, Int32(node)) }
    }
    Self.free(old)
  }
}
