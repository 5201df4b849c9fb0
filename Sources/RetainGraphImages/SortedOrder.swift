// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  internal import CRetainGraphELF

  /// The order that sorts `keys` ascending, ties in their given order: the indices of `keys`, the
  /// smallest key's first. Sorted in C (`rg_sort_pairs`, the C library's `qsort`) as (key, index) pairs: an image has
  /// hundreds of thousands of symbols and address ranges, and the standard library's generic sort
  /// with a closure, unspecialised in a debug build, took most of a first lookup's time.
  /// - Complexity: O(n log n).
  func sortedOrder(of keys: [UInt]) -> [Int] {
    var pairs = [UInt64](repeating: 0, count: keys.count * 2)
    for index in keys.indices {
      pairs[2 * index] = UInt64(keys[index])
      pairs[2 * index + 1] = UInt64(index)
    }
    pairs.withUnsafeMutableBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      rg_sort_pairs(base, keys.count)
    }
    var order = [Int](repeating: 0, count: keys.count)
    for index in keys.indices { order[index] = Int(pairs[2 * index + 1]) }
    return order
  }
#endif
