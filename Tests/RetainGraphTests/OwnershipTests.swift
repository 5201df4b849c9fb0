import RetainGraph
import RetainGraphTestSupport
import Testing

@Suite("Ownership from the runtime")
struct OwnershipTests {
  @Test func classFieldsOfEveryOwnership() {
    let leaf = Leaf()
    let delegate = DelegateImpl()
    let holder = WeakHolder(leaf, delegate: delegate)
    let graph = ObjectGraph(reflecting: holder)
    #expect(
      graph.edgeDescriptions.sorted() == [
        "WeakHolder.delegate -> DelegateImpl (weak)",
        "WeakHolder.strongLeaf -> Leaf (strong)",
        "WeakHolder.unownedDelegate -> DelegateImpl (unowned)",
        "WeakHolder.unownedLeaf -> Leaf (unowned)",
        "WeakHolder.unsafeLeaf -> Leaf (unowned(unsafe))",
        "WeakHolder.weakLeaf -> Leaf (weak)",
      ])
    #expect(graph.cycles.isEmpty)
  }

  @Test func weakTargetsThatAreGoneLeaveNoEdge() {
    let delegate = DelegateImpl()
    let holder = WeakHolder(Leaf(), delegate: delegate)
    do {
      let other = Leaf()
      holder.weakLeaf = other
    }
    let graph = ObjectGraph(reflecting: holder)
    #expect(!graph.edges.contains { $0.label == "weakLeaf" })
  }

  @Test func structFieldsKeepTheirOwnership() {
    let leaf = Leaf()
    let holder = StructHolder(WeakPair(weak: leaf, unowned: leaf, strong: leaf))
    let graph = ObjectGraph(reflecting: holder)
    #expect(
      graph.edgeDescriptions.sorted() == [
        "StructHolder.pair.strong -> Leaf (strong)", "StructHolder.pair.unowned -> Leaf (unowned)",
        "StructHolder.pair.weak -> Leaf (weak)",
      ])
  }

  @Test func genericClassFieldsKeepTheirOwnership() {
    let leaf = Leaf()
    let box = GenericBox(leaf)
    let graph = ObjectGraph(reflecting: box)
    #expect(graph.edges.map(\.ownership).sorted { $0.rawValue < $1.rawValue } == [.strong, .unowned, .weak])
  }

  @Test func unownedUnsafeIsDrawnOnlyToKnownNodes() {
    final class UnsafeHolder {
      unowned(unsafe) var target: Leaf
      init(_ target: Leaf) { self.target = target }
    }
    let outside = Leaf()
    let graph = ObjectGraph(reflecting: UnsafeHolder(outside))
    #expect(graph.edges.isEmpty)
    #expect(graph.nodes.count == 1)
  }

  @Test func danglingUnownedIsReportedWithoutCrashing() {
    let child = UnownedChildFixture(owner: OwnerFixture())
    let graph = ObjectGraph(reflecting: child)
    #expect(graph.danglingReferences == [DanglingReference(holder: 0, label: "owner")])
    #expect(graph.edges.isEmpty)
    assertGolden(graph.report(), named: "dangling-unowned.report")
  }

  @Test func weakSelfCycleIsNotACycle() {
    final class SelfWeak {
      weak var me: SelfWeak?
      var other: SelfWeak?
    }
    let node = SelfWeak()
    node.me = node
    #expect(ObjectGraph(reflecting: node).cycles.isEmpty)
    node.other = node
    let graph = ObjectGraph(reflecting: node)
    #expect(graph.cycles.count == 1)
    #expect(graph.cycles[0].members == [0])
    #expect(graph.cycles[0].suggestedEdge?.label == "other")
    node.other = nil
  }
}
