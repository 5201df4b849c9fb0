import RetainGraphStorage
import RetainGraphSupport
import Testing

/// The columns' bytes: what ``ColumnWriter`` writes, ``ColumnReader`` reads back; a cut or a wrong
/// value is an error naming what and where, never a trap.
@Suite struct ColumnCodecTests {
  /// A count and `edges` in column form, after a string and a 64-bit word.
  static func bytes(edges: ChunkedArray<CompactEdge>, wideLabels: WideLabels) -> [UInt8] {
    let size = 4 + "héllo".utf8.count + 8 + 4 + edges.count * ColumnWriter.edgeSize
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      var writer = ColumnWriter(UnsafeMutableRawBufferPointer(buffer))
      writer.append(string: "héllo")
      writer.append(UInt64.max - 1)
      writer.append(UInt32(edges.count))
      writer.append(edges: edges, wideLabels: wideLabels)
      precondition(writer.offset == size)
      initialized = size
    }
  }

  static func read(_ bytes: [UInt8], nodeCount: Int, labelCount: Int) throws(ColumnReadError) -> (
    string: String, word: UInt64, edges: ChunkedArray<CompactEdge>, wideLabels: WideLabels
  ) {
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(ColumnReadError) in
        var reader = ColumnReader(raw)
        let string = try reader.string("the string")
        let word = try reader.u64("the word")
        let (edges, wideLabels) = try reader.edges(nodeCount: nodeCount, labelCount: labelCount)
        guard reader.left == 0 else { throw reader.malformed("bytes left") }
        return (string, word, edges, wideLabels)
      }
    }
    return try result.get()
  }

  @Test func edgesComeBackWithTheirLabelsIndicesAndOwnerships() throws {
    var wide = WideLabels()
    var edges = ChunkedArray<CompactEdge>()
    var expected: [(from: Int32, to: Int32, label: Int32, index: Int32, code: UInt8)] = []
    var generator = SeededGenerator(seed: 3)
    for _ in 0..<2_000 {
      let from = Int32.random(in: 0..<50, using: &generator)
      let to = Int32.random(in: 0..<50, using: &generator)
      let label = Int32.random(in: 0..<(1 << 14), using: &generator)
      let index = Bool.random(using: &generator) ? -1 : Int32.random(in: 0..<(1 << 17), using: &generator)
      let code = UInt8.random(in: 0...3, using: &generator)
      let made = wide.edge(from: Int(from), to: Int(to), label: label, index: index, ownershipCode: code)
      edges.append(try #require(made))
      expected.append((from, to, label, index, code))
    }
    #expect(!wide.pairs.isEmpty)
    let read = try Self.read(Self.bytes(edges: edges, wideLabels: wide), nodeCount: 50, labelCount: 1 << 14)
    #expect(read.string == "héllo" && read.word == UInt64.max - 1)
    #expect(read.edges.count == expected.count)
    for (position, edge) in expected.enumerated() {
      let back = read.edges[position]
      #expect(back.from == edge.from && back.to == edge.to && back.ownershipCode == edge.code)
      #expect(read.wideLabels.resolve(back) == (edge.label, edge.index))
    }
  }

  @Test func everyCutIsAnErrorNamingWhere() throws {
    var wide = WideLabels()
    var edges = ChunkedArray<CompactEdge>()
    for node in 0..<3 {
      let made = wide.edge(from: node, to: (node + 1) % 3, label: 1, index: 70_000, ownershipCode: 0)
      edges.append(try #require(made))
    }
    let bytes = Self.bytes(edges: edges, wideLabels: wide)
    for length in 0..<bytes.count {
      #expect(throws: ColumnReadError.self) {
        try Self.read(Array(bytes[..<length]), nodeCount: 3, labelCount: 2)
      }
    }
    #expect(
      throws: ColumnReadError(message: "the stream ends inside the length of the string (at byte 0 of 2)")
    ) { try Self.read(Array(bytes[..<2]), nodeCount: 3, labelCount: 2) }
    // The edges' ends and labels are checked against their tables.
    #expect(
      throws: ColumnReadError(message: "edges[0].to: 1 is out of range 0..<1 (at byte 26 of \(bytes.count))")
    ) {
      try Self.read(bytes, nodeCount: 1, labelCount: 2)
    }
    #expect(
      throws: ColumnReadError(
        message: "edges[0].label: 1 is out of range 0..<1 (at byte 30 of \(bytes.count))")
    ) { try Self.read(bytes, nodeCount: 3, labelCount: 1) }
    var tooMany = bytes
    tooMany[18] = 200
    #expect(
      throws: ColumnReadError(
        message: "200 edges cannot fit in the 48 bytes left (at byte 18 of \(bytes.count))")
    ) { try Self.read(tooMany, nodeCount: 3, labelCount: 2) }
    var invalid = bytes
    invalid[4] = 0xFF
    #expect(throws: ColumnReadError(message: "the string is not valid UTF-8 (at byte 0 of \(bytes.count))")) {
      try Self.read(invalid, nodeCount: 3, labelCount: 2)
    }
  }
}
