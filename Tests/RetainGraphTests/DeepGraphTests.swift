import Foundation
import RetainGraph
import Testing

@Suite("Deep graphs on small stacks")
struct DeepGraphTests {
  @Test func millionObjectListOnA512KiBStack() async {
    let head = ListNode.make(count: 1_000_000)
    defer { ListNode.dismantle(head) }
    let tail = {
      var node = head
      while let next = node.next { node = next }
      return node
    }()
    tail.next = head  // one cycle through a million objects
    let box = UncheckedBox(head)
    let result = UncheckedBox<(Int, Int, Int, String)?>(nil)
    await onSmallStack {
      let graph = ObjectGraph(reflecting: box.value, options: GraphOptions(maxNodes: 2_000_000))
      let report = graph.report()
      result.value = (graph.nodes.count, graph.cycles.count, graph.cycles.first?.members.count ?? 0, report)
    }
    tail.next = nil
    let (nodes, cycles, members, report) = result.value ?? (0, 0, 0, "")
    #expect(nodes == 1_000_000)
    #expect(cycles == 1)
    #expect(members == 1_000_000)
    #expect(report.hasPrefix("1 retain cycle reachable from ListNode (1000000 objects)"))
  }

  @Test func deepIndirectEnumOnASmallStack() async {
    var list = LinkedValue.end
    for _ in 0..<20_000 { list = .node(Leaf(), list) }
    let box = UncheckedBox(list)
    let count = UncheckedBox(0)
    await onSmallStack {
      count.value = ObjectGraph(reflecting: box.value, options: GraphOptions(maxNodes: 50_000)).nodes.count
    }
    #expect(count.value == 20_001)
    // Release the deep enum iteratively enough: unwind it one level at a time.
    while case .node(_, let rest) = box.value { box.value = rest }
    list = .end
  }

  /// A chain of an indirect enum names its repeated step once, with a count: labels stay short
  /// whatever the depth (issue 20.9: they used to grow `.node.1.node.1…`, quadratic in time and
  /// memory).
  @Test func hundredThousandDeepIndirectEnumHasBoundedLabels() async {
    var list = LinkedValue.end
    for _ in 0..<100_000 { list = .node(Leaf(), list) }
    let box = UncheckedBox(list)
    let result = UncheckedBox<(nodes: Int, longest: Int, labels: [String])>((0, 0, []))
    await onSmallStack {
      let graph = ObjectGraph(reflecting: box.value, options: GraphOptions(maxNodes: 200_000))
      result.value = (
        graph.nodeCount, graph.edges.map(\.label.utf8.count).max() ?? 0, graph.edges.prefix(7).map(\.label)
      )
    }
    #expect(result.value.nodes == 100_001)
    #expect(result.value.longest <= 48, "the longest label has \(result.value.longest) bytes")
    #expect(
      result.value.labels == [
        "node.0", "node.1.node.0", "node.1.node.1.node.0", "node.1.node.1.node.1.node.0",
        "node.1.node.1.node.1.node.1.node.0", "node.1.node.1.node.1.node.1.node.1.node.0",
        "node.1.node.1(.node.1 ×4).node.0",
      ])
    // Released one level at a time (releasing the whole chain at once recurses once per level):
    // the box holds the only reference then.
    list = .end
    while case .node(_, let rest) = box.value { box.value = rest }
  }

  /// A cycle through a deep indirect enum is found, and the runtime agrees that it leaks.
  @Test func cycleThroughADeepIndirectEnumIsFound() {
    func make() -> (WeakProbe, ObjectGraph) {
      let owner = EnumChainOwner()
      var chain = OwnerChain.owner(owner)
      for index in 0..<1_000 { chain = .link(index, chain) }
      owner.chain = chain
      return (WeakProbe(owner), ObjectGraph(reflecting: owner))
    }
    let (probe, graph) = make()
    #expect(graph.cycles.count == 1)
    #expect(graph.cycles.first?.path.first?.label == "chain(.link.1 ×1000).owner")
    #expect(graph.cycles.first?.path.first?.kind == .enumPayload)
    #expect(probe.object != nil, "the cycle keeps the owner alive")
    (probe.object as? EnumChainOwner)?.chain = .end
    #expect(probe.object == nil, "breaking the enum's reference releases it")
  }
}

final class EnumChainOwner {
  var chain = OwnerChain.end
}

indirect enum OwnerChain {
  case end
  case link(Int, OwnerChain)
  case owner(EnumChainOwner)
}
