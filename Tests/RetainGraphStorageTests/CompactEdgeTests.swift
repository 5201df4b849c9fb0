import RetainGraphStorage
import RetainGraphSupport
import Testing

/// Compact edges: what is packed comes back, and what does not pack goes through the wide labels.
@Suite struct CompactEdgeTests {
  @Test(arguments: 0..<20)
  func packedFieldsComeBack(seed: Int) throws {
    var generator = SeededGenerator(seed: UInt64(seed))
    var wide = WideLabels()
    for _ in 0..<500 {
      let from = Int.random(in: 0..<Int(Int32.max), using: &generator)
      let to = Int.random(in: 0..<Int(Int32.max), using: &generator)
      let code = UInt8.random(in: 0...3, using: &generator)
      // Labels and indices on both sides of the packing limits.
      let label = Int32.random(in: 0..<(1 << 14), using: &generator)
      let index = Bool.random(using: &generator) ? -1 : Int32.random(in: 0..<(1 << 17), using: &generator)
      let made = wide.edge(from: from, to: to, label: label, index: index, ownershipCode: code)
      let edge = try #require(made)
      #expect(edge.from == Int32(from) && edge.to == Int32(to))
      #expect(edge.ownershipCode == code && edge.isStrong == (code == 0))
      #expect(wide.resolve(edge) == (label, index))
      let packs =
        index < 0 || (label < CompactEdge.packedLabelLimit && index < CompactEdge.packedIndexLimit)
      #expect(
        (CompactEdge(from: from, to: to, label: label, index: index, ownershipCode: code) != nil) == packs)
    }
  }

  @Test func packingLimits() throws {
    let last = try #require(
      CompactEdge(
        from: 1, to: 2, label: CompactEdge.packedLabelLimit - 1, index: CompactEdge.packedIndexLimit - 1,
        ownershipCode: 3))
    #expect(
      WideLabels().resolve(last) == (CompactEdge.packedLabelLimit - 1, CompactEdge.packedIndexLimit - 1))
    #expect(last.ownershipCode == 3)
    #expect(
      CompactEdge(from: 1, to: 2, label: CompactEdge.packedLabelLimit, index: 0, ownershipCode: 0) == nil)
    #expect(
      CompactEdge(from: 1, to: 2, label: 0, index: CompactEdge.packedIndexLimit, ownershipCode: 0) == nil)
    // Without an index, a label packs up to the wide base.
    let plain = try #require(CompactEdge(from: 1, to: 2, label: CompactEdge.wideBase - 1, ownershipCode: 1))
    #expect(WideLabels().resolve(plain) == (CompactEdge.wideBase - 1, -1))
    #expect(CompactEdge(from: 1, to: 2, label: CompactEdge.wideBase, ownershipCode: 1) == nil)
    var wide = WideLabels()
    #expect(wide.edge(from: 1, to: 2, label: CompactEdge.wideBase, index: 0, ownershipCode: 0) == nil)
    #expect(wide.pairs.isEmpty)
  }

  @Test func wideLabelsKeepOnlyWhatDoesNotPack() throws {
    var wide = WideLabels()
    var edges = ChunkedArray<CompactEdge>()
    for index in 0..<70_000 {
      let made = wide.edge(from: 0, to: index + 1, label: 7, index: Int32(index), ownershipCode: 0)
      edges.append(try #require(made))
    }
    #expect(wide.pairs.count == 70_000 - Int(CompactEdge.packedIndexLimit))
    for index in [0, 65_535, 65_536, 69_999] {
      #expect(wide.resolve(edges[index]) == (7, Int32(index)))
      #expect(edges[index].to == Int32(index + 1))
    }
  }

  @Test func edgesKeepTheirFieldsPastAChunk() throws {
    var edges = ChunkedArray<CompactEdge>()
    for index in 0..<70_000 {
      edges.append(
        try #require(
          CompactEdge(from: index, to: index + 1, label: Int32(index % 100), ownershipCode: UInt8(index % 4)))
      )
    }
    #expect(edges.count == 70_000)
    for index in [0, 1, 65_535, 65_536, 69_999] {
      #expect(edges[index].from == Int32(index) && edges[index].to == Int32(index + 1))
      #expect(edges[index].ownershipCode == UInt8(index % 4))
      #expect(WideLabels().resolve(edges[index]) == (Int32(index % 100), -1))
    }
  }
}
