package import RetainGraphSupport

/// The graph's edges in compressed sparse rows, by holder: what Tarjan's search, the search from
/// the root and the cycles' signatures read a node's references from.
extension ChunkedArray where Element == CompactEdge {
  /// Successor node ids of every node in compressed form.
  /// - Parameters:
  ///   - nodeCount: the number of nodes; every edge's ends are below it.
  ///   - strongOnly: whether only strong edges are listed.
  /// - Returns: the rows: the successors of node `n` are `targets[offsets[n]..<offsets[n + 1]]`, in
  ///   edge order.
  package func successors(nodeCount: Int, strongOnly: Bool) -> (offsets: [Int32], targets: [Int32]) {
    compressed(nodeCount: nodeCount, strongOnly: strongOnly) { _, edge in edge.to }
  }

  /// Outgoing edge indices of every node in compressed form.
  /// - Parameters:
  ///   - nodeCount: the number of nodes; every edge's ends are below it.
  ///   - strongOnly: whether only strong edges are listed.
  /// - Returns: the rows: the edges of node `n` are `edgeIndices[offsets[n]..<offsets[n + 1]]`, in
  ///   edge order.
  package func adjacency(nodeCount: Int, strongOnly: Bool) -> (offsets: [Int32], edgeIndices: [Int32]) {
    compressed(nodeCount: nodeCount, strongOnly: strongOnly) { index, _ in Int32(index) }
  }

  /// The strong edges in rows by holder: the edges of node `n` are at positions
  /// `offsets[n]..<offsets[n + 1]`, in edge order (see ``StrongRows``). A walked graph's edges
  /// already come grouped by holder, holders ascending: then the rows are the edges themselves
  /// (position `p` is edge `p`, weak ones included), and only the offsets are made.
  /// - Parameter nodeCount: the number of nodes; every edge's ends are below it.
  /// - Returns: the rows, without back edges' spans.
  package func strongRows(nodeCount: Int) -> StrongRows {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    let inEdgeOrder = offsets.withUnsafeMutableBufferPointer { offsets in
      // Through the buffer (holders are below `nodeCount`): no bounds or uniqueness check per edge.
      var previous: Int32 = 0
      for index in 0..<count {
        let from = self[index].from
        guard from >= previous else { return false }
        previous = from
        offsets[Int(from) + 1] += 1
      }
      for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
      return true
    }
    if inEdgeOrder { return StrongRows(offsets: offsets, edgeIndices: nil) }
    let (strongOffsets, edgeIndices) = adjacency(nodeCount: nodeCount, strongOnly: true)
    return StrongRows(offsets: strongOffsets, edgeIndices: edgeIndices)
  }

  /// One entry per (strong) edge, grouped by the node the edge comes from (compressed sparse rows).
  private func compressed(
    nodeCount: Int, strongOnly: Bool, _ entry: (Int, CompactEdge) -> Int32
  ) -> ([Int32], [Int32]) {
    var offsets = [Int32](repeating: 0, count: nodeCount + 1)
    for edge in self where !strongOnly || edge.isStrong { offsets[Int(edge.from) + 1] += 1 }
    for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
    var cursor = offsets
    var entries = [Int32](repeating: 0, count: Int(offsets[nodeCount]))
    for (index, edge) in enumerated() where !strongOnly || edge.isStrong {
      let from = Int(edge.from)
      entries[Int(cursor[from])] = entry(index, edge)
      cursor[from] += 1
    }
    return (offsets, entries)
  }
}

/// The strong edges of a graph in rows by holder (see
/// `ChunkedArray<CompactEdge>.strongRows(nodeCount:)`): each position names an edge
/// (``edgeIndex(at:)``); when the rows are the graph's own edges, weak ones are among them, so a
/// reader skips the positions whose edge is not strong. `public` with `@inlinable` reads, as
/// ``CompactEdge`` is: the cycle finder reads a position per reference.
public struct StrongRows {
  @usableFromInline package var offsets: [Int32]
  /// The edge index at each position; nil when position `p` is edge `p` (the edges are grouped by
  /// holder already).
  @usableFromInline package var edgeIndices: [Int32]?
  /// For each position, 0 unless the edge is a back edge of Tarjan's search; then its span, which
  /// bounds the loop it closes over the search tree, at most 255 (set by the cycle finder; see
  /// `Tarjan.cyclicComponents`).
  @usableFromInline package var backEdgeSpan: [UInt8] = []

  package init(offsets: [Int32], edgeIndices: [Int32]?) {
    self.offsets = offsets
    self.edgeIndices = edgeIndices
  }

  /// How many positions the rows have.
  @inlinable package var count: Int { Int(offsets[offsets.count - 1]) }

  /// The index of the edge at `position`.
  @inlinable @inline(__always)
  package func edgeIndex(at position: Int) -> Int32 {
    if let edgeIndices { return edgeIndices[position] }
    return Int32(truncatingIfNeeded: position)
  }
}
