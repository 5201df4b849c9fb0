import RetainGraphStorage
import RetainGraphSupport
import Testing

/// Tarjan's cyclic components against a brute-force reachability check, on small random graphs in
/// both forms of rows (the edges themselves when grouped by holder, an index otherwise).
@Suite struct TarjanTests {
  /// The cyclic components by brute force: the classes of mutual strong reachability, kept when
  /// they have more than one node or a node with a strong edge to itself; each sorted.
  static func expectedComponents(_ graph: SyntheticGraph) -> Set<[Int32]> {
    let reaches = graph.reachability { graph.plain[$0].strong }
    var components: Set<[Int32]> = []
    for node in 0..<graph.nodeCount {
      let members = (0..<graph.nodeCount).filter { $0 == node || (reaches[node][$0] && reaches[$0][node]) }
      if members.count > 1 || reaches[node][node] { components.insert(members.map { Int32($0) }) }
    }
    return components
  }

  static func components(_ graph: SyntheticGraph) -> (components: [[Int32]], rows: StrongRows, spans: [UInt8])
  {
    let rows = graph.edges.strongRows(nodeCount: graph.nodeCount)
    var spans = [UInt8](repeating: 0, count: rows.count)
    let components = Tarjan.cyclicComponents(
      nodeCount: graph.nodeCount, offsets: rows.offsets, edgeIndices: rows.edgeIndices, edges: graph.edges,
      backEdgeSpans: &spans)
    return (components, rows, spans)
  }

  @Test(arguments: 0..<200)
  func componentsMatchReachability(seed: Int) {
    var generator = SeededGenerator(seed: UInt64(seed))
    let nodeCount = Int.random(in: 1...12, using: &generator)
    let random = SyntheticGraph.random(
      nodeCount: nodeCount, edgeCount: Int.random(in: 0...(nodeCount * 3), using: &generator), weakOneIn: 4,
      seed: UInt64(seed) &* 7919)
    let expected = Self.expectedComponents(random)
    for graph in [random, random.groupedByHolder()] {
      let (components, rows, spans) = Self.components(graph)
      #expect(Set(components.map { $0.sorted() }) == expected, "seed \(seed)")
      #expect(
        components.map(\.count).reduce(0, +) == Set(components.joined()).count, "a node in two components")
      // Weakening every back edge leaves no cycle but self-references.
      let isBackEdge = Set((0..<rows.count).filter { spans[$0] > 0 }.map { Int(rows.edgeIndex(at: $0)) })
      for position in 0..<rows.count where spans[position] > 0 {
        #expect(graph.plain[Int(rows.edgeIndex(at: position))].strong, "a back edge that is not strong")
      }
      let rest = graph.reachability { graph.plain[$0].strong && !isBackEdge.contains($0) }
      for node in 0..<nodeCount where rest[node][node] {
        let selfLoop = graph.plain.contains { $0.from == node && $0.to == node && $0.strong }
        #expect(selfLoop, "seed \(seed): node \(node) is still on a cycle")
      }
    }
  }

  @Test func rowsAreTheEdgesWhenGroupedByHolder() {
    let graph = SyntheticGraph.random(nodeCount: 20, edgeCount: 60, weakOneIn: 3, seed: 42)
    let grouped = graph.groupedByHolder()
    let rows = grouped.edges.strongRows(nodeCount: grouped.nodeCount)
    #expect(rows.edgeIndices == nil)
    #expect(rows.count == grouped.edges.count)
    let indexed = graph.edges.strongRows(nodeCount: graph.nodeCount)
    #expect(indexed.edgeIndices != nil)
    #expect(indexed.count == graph.plain.filter(\.strong).count)
    for node in 0..<graph.nodeCount {
      let listed = (Int(indexed.offsets[node])..<Int(indexed.offsets[node + 1])).map {
        Int(indexed.edgeIndex(at: $0))
      }
      let expected = graph.plain.indices.filter { graph.plain[$0].from == node && graph.plain[$0].strong }
      #expect(listed == expected)
    }
  }

  @Test func successorsAndAdjacencyListEdgesInOrder() {
    let graph = SyntheticGraph.random(nodeCount: 15, edgeCount: 50, weakOneIn: 3, seed: 7)
    for strongOnly in [false, true] {
      let successors = graph.edges.successors(nodeCount: graph.nodeCount, strongOnly: strongOnly)
      let adjacency = graph.edges.adjacency(nodeCount: graph.nodeCount, strongOnly: strongOnly)
      #expect(successors.offsets == adjacency.offsets)
      for node in 0..<graph.nodeCount {
        let expected = graph.plain.indices.filter {
          graph.plain[$0].from == node && (!strongOnly || graph.plain[$0].strong)
        }
        let range = Int(adjacency.offsets[node])..<Int(adjacency.offsets[node + 1])
        #expect(adjacency.edgeIndices[range].map { Int($0) } == expected)
        #expect(successors.targets[range].map { Int($0) } == expected.map { graph.plain[$0].to })
      }
    }
  }

  /// A ring of 200,000 nodes is one component, searched without recursion.
  @Test func longRing() {
    var graph = SyntheticGraph(nodeCount: 200_000)
    for node in 0..<graph.nodeCount {
      graph.add(from: node, to: (node + 1) % graph.nodeCount, ownershipCode: 0)
    }
    let (components, _, spans) = Self.components(graph)
    #expect(components.count == 1)
    #expect(components.first?.count == graph.nodeCount)
    // One back edge closes the ring: the last node's reference to the first.
    #expect(spans.filter { $0 > 0 } == [255])
  }
}
