import RetainGraphStorage
import RetainGraphSupport

/// A small seeded generator (SplitMix64), so that a failing graph is made again from its seed.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// A graph of plain ids: its edges as a compact column, and the same edges as tuples to check
/// against.
struct SyntheticGraph {
  let nodeCount: Int
  var edges = ChunkedArray<CompactEdge>()
  var plain: [(from: Int, to: Int, strong: Bool)] = []

  init(nodeCount: Int) { self.nodeCount = nodeCount }

  /// Adds an edge (label 0, which always packs).
  mutating func add(from: Int, to: Int, ownershipCode: UInt8) {
    guard let edge = CompactEdge(from: from, to: to, label: 0, ownershipCode: ownershipCode) else {
      preconditionFailure("label 0 packs")
    }
    edges.append(edge)
    plain.append((from, to, ownershipCode == 0))
  }

  /// `edgeCount` edges between random nodes, one in `1 / weakOneIn` not strong (never when 0).
  static func random(nodeCount: Int, edgeCount: Int, weakOneIn: Int, seed: UInt64) -> SyntheticGraph {
    var generator = SeededGenerator(seed: seed)
    var graph = SyntheticGraph(nodeCount: nodeCount)
    for _ in 0..<edgeCount {
      let from = Int.random(in: 0..<nodeCount, using: &generator)
      let to = Int.random(in: 0..<nodeCount, using: &generator)
      let weak = weakOneIn > 0 && Int.random(in: 0..<weakOneIn, using: &generator) == 0
      graph.add(from: from, to: to, ownershipCode: weak ? UInt8.random(in: 1...3, using: &generator) : 0)
    }
    return graph
  }

  /// The same edges sorted by holder (stable), as a walk stores them.
  func groupedByHolder() -> SyntheticGraph {
    var grouped = SyntheticGraph(nodeCount: nodeCount)
    for edge in plain.enumerated().sorted(by: { ($0.element.from, $0.offset) < ($1.element.from, $1.offset) })
    {
      grouped.add(from: edge.element.from, to: edge.element.to, ownershipCode: edge.element.strong ? 0 : 1)
    }
    return grouped
  }

  /// Which nodes each node reaches through one or more edges kept by `isKept` (by brute force: a
  /// search from every node).
  func reachability(keeping isKept: (Int) -> Bool) -> [[Bool]] {
    var reaches = [[Bool]](repeating: [Bool](repeating: false, count: nodeCount), count: nodeCount)
    for start in 0..<nodeCount {
      var stack = [start]
      while let node = stack.popLast() {
        for (index, edge) in plain.enumerated()
        where edge.from == node && isKept(index) && !reaches[start][edge.to] {
          reaches[start][edge.to] = true
          stack.append(edge.to)
        }
      }
    }
    return reaches
  }

  /// Each node's distance from `root` over every edge by a plain breadth-first search
  /// (`Int32.max` when it cannot be reached).
  func distances(from root: Int) -> [Int32] {
    var distance = [Int32](repeating: .max, count: nodeCount)
    distance[root] = 0
    var queue = [root]
    var head = 0
    while head < queue.count {
      let node = queue[head]
      head += 1
      for edge in plain where edge.from == node && distance[edge.to] == .max {
        distance[edge.to] = distance[node] + 1
        queue.append(edge.to)
      }
    }
    return distance
  }
}
