// Built with the package trait BinaryReaders only: without it this target is empty, and nothing
// reads ELF (`<elf.h>`'s types), DWARF or frames, as on a platform without readers of its own.
#if BinaryReaders
  #if canImport(Glibc)
    internal import Glibc
  #elseif canImport(Musl)
    internal import Musl
  #elseif canImport(Darwin)
    internal import Darwin
  #endif

  /// A position in one DWARF section that never reads outside it: a read that would gives zero and
  /// sets ``overran`` (checked once per attribute rather than per byte).
  struct DWARFCursor {
    let bytes: UnsafeRawBufferPointer
    /// The offset from the section's start.
    var offset: Int
    /// Set once a read went past the section's end (the bytes read as zero).
    private(set) var overran = false

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
      self.bytes = bytes
      self.offset = offset
      if offset < 0 || offset > bytes.count { overran = true }
    }

    var isAtEnd: Bool { offset >= bytes.count }

    /// The next `size` bytes' offset, moving past them; nil (and ``overran``) when they go past the end.
    @inline(__always)
    private mutating func take(_ size: Int) -> Int? {
      guard !overran, offset >= 0, size <= bytes.count - offset else {
        overran = true
        return nil
      }
      defer { offset += size }
      return offset
    }

    // Little-endian integers, one function per width (not generic: unspecialised generic code in a
    // debug build would make reading a test binary's DWARF several times slower).
    mutating func u16() -> UInt16 {
      take(2).map { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt16.self)) } ?? 0
    }

    mutating func u32() -> UInt32 {
      take(4).map { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt32.self)) } ?? 0
    }

    mutating func u64() -> UInt64 {
      take(8).map { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0, as: UInt64.self)) } ?? 0
    }

    @inline(__always)
    mutating func byte() -> UInt8 {
      guard !overran, offset >= 0, offset < bytes.count else {
        overran = true
        return 0
      }
      defer { offset += 1 }
      return bytes[offset]
    }

    /// An unsigned LEB128 (a signed one is skipped the same way); bits past 64 are dropped.
    @inline(__always)
    mutating func uleb() -> UInt64 {
      var result: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard !overran, offset >= 0, offset < bytes.count else {
          overran = true
          return result
        }
        let byte = bytes[offset]
        offset += 1
        if shift < 64 { result |= UInt64(byte & 0x7F) << shift }
        shift += 7
        if byte & 0x80 == 0 { return result }
      }
    }

    /// A signed LEB128: ``uleb()``'s bits, sign-extended from the last byte's sign bit; bits past 64
    /// are dropped.
    mutating func sleb() -> Int64 {
      let start = offset
      var value = Int64(bitPattern: uleb())
      let shift = 7 * (offset - start)
      if !overran, shift < 64, bytes[offset - 1] & 0x40 != 0 { value |= -1 << shift }
      return value
    }

    /// Moves `count` bytes on.
    mutating func skip(_ count: Int) {
      guard !overran, count >= 0, offset >= 0, count <= bytes.count - offset else {
        overran = true
        return
      }
      offset += count
    }

    /// The NUL-terminated string at the cursor, moving past its NUL; nil (and ``overran``) when it is
    /// not terminated inside the section.
    mutating func cString() -> UnsafePointer<CChar>? {
      guard let string = Self.cString(in: bytes, at: offset) else {
        overran = true
        return nil
      }
      offset += strlen(string) + 1
      return string
    }

    /// The NUL-terminated string at `offset` in `bytes`, nil when it is not terminated inside them.
    static func cString(in bytes: UnsafeRawBufferPointer, at offset: Int) -> UnsafePointer<CChar>? {
      guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress,
        memchr(base + offset, 0, bytes.count - offset) != nil
      else { return nil }
      return (base + offset).assumingMemoryBound(to: CChar.self)
    }
  }
#endif
