/// The benchmark's object: a weak parent, a name, sixteen integers, an id, and up to four children
/// (the tree node), reused for the list and the random graph.
final class BenchNode {
  weak var parent: BenchNode?
  var name: String
  var values = [Int](repeating: 7, count: 16)
  var id: Int
  var children: [BenchNode] = []
  var next: BenchNode?
  var previous: BenchNode?
  var strong: [BenchNode] = []
  weak var weakLink: BenchNode?

  init(id: Int) {
    self.id = id
    self.name = "node \(id)"
  }

  /// Drops every strong reference, iteratively, so that releasing a big shape does not recurse.
  static func dismantle(_ nodes: [BenchNode]) {
    for node in nodes {
      node.children = []
      node.next = nil
      node.previous = nil
      node.strong = []
    }
  }
}

enum Shape: String, CaseIterable {
  case tree, list, random

  /// Builds the shape with `count` objects; returns the root and every object.
  func build(count: Int) -> (root: BenchNode, all: [BenchNode]) {
    let nodes = (0..<count).map(BenchNode.init)
    switch self {
    case .tree:
      for index in 1..<count {
        let parent = nodes[(index - 1) / 4]
        parent.children.append(nodes[index])
        nodes[index].parent = parent
      }
    case .list:
      for index in 1..<count {
        nodes[index - 1].next = nodes[index]
        nodes[index].previous = nodes[index - 1]
      }
    case .random:
      var random = SplitMix64(seed: 42)
      // A spine keeps everything reachable; then three references per object, a third weak.
      for index in 1..<count { nodes[index - 1].next = nodes[index] }
      for node in nodes {
        for slot in 0..<3 {
          let target = nodes[Int(random.next() % UInt64(count))]
          if slot == 2 { node.weakLink = target } else { node.strong.append(target) }
        }
      }
    }
    return (nodes[0], nodes)
  }
}

struct SplitMix64 {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
