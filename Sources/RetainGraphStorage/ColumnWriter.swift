package import RetainGraphSupport

/// Writes columns in the byte form of the forked walk's transfer (the core's `GraphTransfer` says
/// what follows what) into a buffer sized beforehand: integers little-endian, strings as a `u32`
/// byte count and UTF-8, and the edge column. `public` with `@inlinable` appends, as
/// ``CompactEdge`` is: the core writes a few integers per node.
public struct ColumnWriter {
  /// The word written for an absent index or node.
  package static let noIndex: UInt32 = 0xFFFF_FFFF
  /// The bytes ``append(edges:wideLabels:)`` writes per edge.
  package static let edgeSize = 16

  @usableFromInline let buffer: UnsafeMutableRawBufferPointer
  /// How many bytes are written.
  @usableFromInline package internal(set) var offset = 0

  package init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

  @inlinable
  package mutating func append(byte: UInt8) {
    buffer[offset] = byte
    offset += 1
  }

  package mutating func append(_ raw: [UInt8]) {
    for byte in raw { append(byte: byte) }
  }

  @inlinable
  package mutating func append(_ value: UInt32) {
    buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    offset += 4
  }

  @inlinable
  package mutating func append(_ value: UInt64) {
    buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    offset += 8
  }

  package mutating func append(string: String) {
    var string = string
    string.withUTF8 { utf8 in
      append(UInt32(utf8.count))
      UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + utf8.count]).copyMemory(
        from: UnsafeRawBufferPointer(utf8))
      offset += utf8.count
    }
  }

  /// A `u32` count, then each string.
  package mutating func append(strings: [String]) {
    append(UInt32(strings.count))
    for string in strings { append(string: string) }
  }

  /// Every edge, ``edgeSize`` bytes each: `u32` from, `u32` to, `u32` (label << 2 | ownership
  /// code), `u32` element index (``noIndex`` for none); wide labels resolved. The count is not
  /// written.
  package mutating func append(edges: ChunkedArray<CompactEdge>, wideLabels: WideLabels) {
    for edge in edges {
      append(UInt32(bitPattern: edge.from))
      append(UInt32(bitPattern: edge.to))
      let (label, index) = wideLabels.resolve(edge)
      append(UInt32(bitPattern: label) << 2 | UInt32(edge.ownershipCode))
      append(index < 0 ? Self.noIndex : UInt32(index))
    }
  }
}
