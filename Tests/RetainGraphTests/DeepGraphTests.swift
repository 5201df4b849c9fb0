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
}
