package import RetainGraphSupport

/// Why bytes could not be read as columns: what is wrong and at which byte.
public struct ColumnReadError: Error, Equatable {
  /// What is wrong, then `(at byte N of M)`.
  package let message: String

  @usableFromInline package init(message: String) { self.message = message }
}

/// Reads what ``ColumnWriter`` wrote, checking each count against the bytes left before allocating,
/// each index against its table and each string for valid UTF-8: a malformed stream is a
/// ``ColumnReadError``, never a trap. `public` with `@inlinable` reads, as ``CompactEdge`` is: the
/// core reads a few integers per node.
public struct ColumnReader {
  @usableFromInline package let raw: UnsafeRawBufferPointer
  /// How many bytes are read.
  @usableFromInline package internal(set) var offset = 0

  package init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

  /// How many bytes are left.
  @inlinable package var left: Int { raw.count - offset }

  /// The error naming `what` and the byte it is at (the current one by default).
  @usableFromInline
  package func malformed(_ what: String, at position: Int? = nil) -> ColumnReadError {
    ColumnReadError(message: "\(what) (at byte \(position ?? offset) of \(raw.count))")
  }

  @inlinable
  package mutating func u32(_ what: @autoclosure () -> String) throws(ColumnReadError) -> UInt32 {
    guard left >= 4 else { throw malformed("the stream ends inside \(what())") }
    let value = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    offset += 4
    return value
  }

  @inlinable
  package mutating func u64(_ what: @autoclosure () -> String) throws(ColumnReadError) -> UInt64 {
    guard left >= 8 else { throw malformed("the stream ends inside \(what())") }
    let value = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    offset += 8
    return value
  }

  @inlinable
  package mutating func u8(_ what: @autoclosure () -> String) throws(ColumnReadError) -> UInt8 {
    guard left >= 1 else { throw malformed("the stream ends inside \(what())") }
    defer { offset += 1 }
    return raw[offset]
  }

  /// An index into a table of `count` entries.
  @inlinable
  package mutating func index(_ what: @autoclosure () -> String, below count: Int) throws(ColumnReadError)
    -> Int
  {
    let start = offset
    let value = Int(try u32(what()))
    guard value < count else {
      throw malformed("\(what()): \(value) is out of range 0..<\(count)", at: start)
    }
    return value
  }

  /// A count of entries each at least `minimumSize` bytes long, checked against the bytes left.
  package mutating func count(_ what: String, minimumSize: Int) throws(ColumnReadError) -> Int {
    let start = offset
    let value = Int(try u32("the count of \(what)"))
    guard value <= left / minimumSize, value <= Int(Int32.max) else {
      throw malformed("\(value) \(what) cannot fit in the \(left) bytes left", at: start)
    }
    return value
  }

  /// The bytes `marker`, named `what` when they are missing.
  package mutating func expect(_ marker: [UInt8], _ what: String) throws(ColumnReadError) {
    guard left >= marker.count, marker.indices.allSatisfy({ raw[offset + $0] == marker[$0] }) else {
      throw malformed("\(what) is missing")
    }
    offset += marker.count
  }

  package mutating func string(_ what: @autoclosure () -> String) throws(ColumnReadError) -> String {
    let start = offset
    let length = Int(try u32("the length of \(what())"))
    guard length <= left else {
      throw malformed("\(what()): \(length) bytes announced, \(left) left", at: start)
    }
    let utf8 = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length])
    guard let string = String(validating: utf8.bindMemory(to: UInt8.self), as: UTF8.self) else {
      throw malformed("\(what()) is not valid UTF-8", at: start)
    }
    offset += length
    return string
  }

  /// A count, then as many strings, named `what[i]`.
  package mutating func strings(_ what: String) throws(ColumnReadError) -> [String] {
    let count = try count(what, minimumSize: 4)
    var strings: [String] = []
    strings.reserveCapacity(count)
    for index in 0..<count { strings.append(try string("\(what)[\(index)]")) }
    return strings
  }

  /// A count, then the edges ``ColumnWriter/append(edges:wideLabels:)`` wrote, each end checked
  /// against `nodeCount` and each label against `labelCount`, named `edges[i]`.
  /// - Returns: the edges, packed again, and the pairs of those too wide to pack.
  package mutating func edges(nodeCount: Int, labelCount: Int) throws(ColumnReadError) -> (
    edges: ChunkedArray<CompactEdge>, wideLabels: WideLabels
  ) {
    let edgeCount = try count("edges", minimumSize: ColumnWriter.edgeSize)
    var edges = ChunkedArray<CompactEdge>()
    var wideLabels = WideLabels()
    for edge in 0..<edgeCount {
      let from = try index("edges[\(edge)].from", below: nodeCount)
      let to = try index("edges[\(edge)].to", below: nodeCount)
      let labelStart = offset
      let labelWord = try u32("edges[\(edge)].label")
      let label = Int(labelWord >> 2)
      guard label < labelCount else {
        throw malformed("edges[\(edge)].label: \(label) is out of range 0..<\(labelCount)", at: labelStart)
      }
      let indexStart = offset
      let indexWord = try u32("edges[\(edge)].index")
      let elementIndex = indexWord == ColumnWriter.noIndex ? -1 : Int32(clamping: indexWord)
      guard
        let compact = wideLabels.edge(
          from: from, to: to, label: Int32(label), index: elementIndex, ownershipCode: UInt8(labelWord & 3))
      else {
        throw malformed(
          "edges[\(edge)]: label \(label) with index \(indexWord) cannot be stored", at: indexStart)
      }
      edges.append(compact)
    }
    return (edges, wideLabels)
  }
}
