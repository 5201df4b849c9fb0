import RetainGraphSupport
import Testing

@testable import RetainGraph

/// The graph's compact edges keep their fields when stored in a `ChunkedArray` past a chunk
/// boundary (the array itself is tested in RetainGraphSupportTests).
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
}
