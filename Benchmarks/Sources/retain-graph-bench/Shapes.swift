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

/// A small object held only through nested collections.
final class Leaf {
  var value = 0
}

/// A root holding `[[Leaf]]`: arrays of arrays of objects.
final class NestedRoot {
  var groups: [[Leaf]]
  init(groups: [[Leaf]]) { self.groups = groups }
}

/// A root holding `[String: [Leaf]]`: a dictionary of arrays of objects.
final class KeyedRoot {
  var groups: [String: [Leaf]]
  init(groups: [String: [Leaf]]) { self.groups = groups }
}

/// A shape built for a benchmark row: its root, the typed traversal that counts its objects, and
/// how to take it apart without recursion.
struct BuiltShape {
  let root: AnyObject
  let typedTraversal: () -> Int
  let dismantle: () -> Void
}

enum Shape: String, CaseIterable {
  case tree, list, random
  /// 1,000 objects per inner array (the issue's `[[Leaf]]`: 2,000 arrays of 1,000 at 2M objects).
  case nested
  /// 1,000 objects per array, arrays keyed by strings.
  case keyed

  /// Builds the shape with `count` objects, the root included.
  func build(count: Int) -> BuiltShape {
    switch self {
    case .tree, .list, .random:
      let (root, all) = buildNodes(count: count)
      return BuiltShape(
        root: root, typedTraversal: { typedTraversal(root) },
        dismantle: { BenchNode.dismantle(all) })
    case .nested:
      let groups = Self.leafGroups(count: count - 1)
      let root = NestedRoot(groups: groups)
      return BuiltShape(
        root: root, typedTraversal: { typedNestedTraversal(root) }, dismantle: { root.groups = [] })
    case .keyed:
      let groups = Self.leafGroups(count: count - 1)
      var keyed: [String: [Leaf]] = [:]
      for (index, group) in groups.enumerated() { keyed["group \(index)"] = group }
      let root = KeyedRoot(groups: keyed)
      return BuiltShape(
        root: root, typedTraversal: { typedKeyedTraversal(root) }, dismantle: { root.groups = [:] })
    }
  }

  private static func leafGroups(count: Int) -> [[Leaf]] {
    stride(from: 0, to: count, by: 1_000).map { start in
      (start..<min(count, start + 1_000)).map { _ in Leaf() }
    }
  }

  /// Builds a shape of `BenchNode`s; returns the root and every object.
  private func buildNodes(count: Int) -> (root: BenchNode, all: [BenchNode]) {
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
    case .nested, .keyed:
      break
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
