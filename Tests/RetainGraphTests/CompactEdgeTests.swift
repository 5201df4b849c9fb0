import RetainGraphStorage
import RetainGraphSupport
import Testing

@testable import RetainGraph

/// The graph's compact edges keep their fields when stored in a `ChunkedArray` past a chunk
/// boundary, and their ownership through its code (the edges themselves are tested in
/// RetainGraphStorageTests, the array in RetainGraphSupportTests).
@Suite struct CompactEdgeTests {
  @Test func edgesKeepTheirFields() {
    var edges = ChunkedArray<CompactEdge>()
    for index in 0..<70_000 {
      edges.append(
        CompactEdge(
          from: index, to: index + 1, label: Int32(index % 100), ownership: index % 3 == 0 ? .weak : .strong)!
      )
    }
    #expect(edges.count == 70_000)
    for index in [0, 1, 65_535, 65_536, 69_999] {
      #expect(edges[index].from == Int32(index) && edges[index].to == Int32(index + 1))
      #expect(edges[index].isStrong == (index % 3 != 0))
    }
  }

  @Test(arguments: Ownership.allCases)
  func ownershipComesBackThroughItsCode(ownership: Ownership) throws {
    let packed = try #require(CompactEdge(from: 1, to: 2, label: 3, ownership: ownership))
    #expect(packed.ownership == ownership && packed.isStrong == (ownership == .strong))
    var wide = WideLabels()
    let made = wide.edge(from: 1, to: 2, label: 3, index: 70_000, ownership: ownership)
    let indexed = try #require(made)
    #expect(indexed.ownership == ownership && wide.pairs.count == 1)
    #expect(Ownership(code: ownership.code) == ownership)
  }
}
