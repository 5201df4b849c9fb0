#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Darwin)
  internal import Darwin
#elseif canImport(Musl)
  internal import Musl
#endif

/// Strings read from a snapshot, interned by their UTF-8 bytes so that a million nodes of one type
/// (or edges with one label) make one `String`, and reading them hashes bytes instead of making a
/// `String` to look one up.
package struct JSONStringTable: Sendable {
  /// The strings, by id.
  package private(set) var strings: [String] = []
  private var arena: [UInt8] = []
  private var starts: [Int] = [0]
  private var hashes: [Int] = []
  /// Open addressing: a string's id, or -1; at most half full.
  private var slots = [Int32](repeating: -1, count: 64)

  /// The id of the string whose UTF-8 is `bytes` (well-formed), made on first sight.
  mutating func intern(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
    var hasher = Hasher()
    hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
    let hash = hasher.finalize()
    let mask = slots.count - 1
    var slot = hash & mask
    while true {
      let id = slots[slot]
      if id < 0 { break }
      if hashes[Int(id)] == hash && equals(Int(id), bytes) { return id }
      slot = (slot + 1) & mask
    }
    let id = Int32(strings.count)
    strings.append(String(decoding: bytes, as: UTF8.self))
    arena.append(contentsOf: bytes)
    starts.append(arena.count)
    hashes.append(hash)
    slots[slot] = id
    if strings.count * 2 > slots.count { grow() }
    return id
  }

  package subscript(id: Int32) -> String { strings[Int(id)] }

  private func equals(_ id: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let start = starts[id]
    guard starts[id + 1] - start == bytes.count else { return false }
    return arena.withUnsafeBufferPointer { stored in
      bytes.isEmpty
        || memcmp(
          stored.baseAddress.unsafelyUnwrapped + start, bytes.baseAddress.unsafelyUnwrapped, bytes.count) == 0
    }
  }

  private mutating func grow() {
    slots = [Int32](repeating: -1, count: slots.count * 2)
    let mask = slots.count - 1
    for (id, hash) in hashes.enumerated() {
      var slot = hash & mask
      while slots[slot] >= 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(id)
    }
  }
}
