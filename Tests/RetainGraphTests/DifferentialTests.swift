import RetainGraph
import Samples
import Testing

/// The fast paths (direct reads of object fields, arrays and weak references) must give exactly the
/// answers of the general path.
@Suite("Fast paths against the general path")
struct DifferentialTests {
  static func expectSame(_ root: Any, _ context: String) {
    let fast = ObjectGraph(reflecting: root)
    var options = GraphOptions()
    options.fastPaths = false
    let general = ObjectGraph(reflecting: root, options: options)
    #expect(fast.nodes == general.nodes, "\(context)")
    #expect(fast.edges == general.edges, "\(context)")
    #expect(fast.cycles == general.cycles, "\(context)")
    #expect(fast.danglingReferences == general.danglingReferences, "\(context)")
    #expect(fast.notes == general.notes, "\(context)")
  }

  @Test func samples() {
    for sample in Sample.all {
      let instance = sample.make()
      Self.expectSame(instance.root, sample.name)
      instance.breakCycles()
    }
  }

  @Test func typeZoo() {
    Self.expectSame(TypeZooTests.Zoo(), "zoo")
    Self.expectSame(ValueShapeTests.Shapes(), "shapes")
    let leaf = Leaf()
    Self.expectSame(WeakHolder(leaf, delegate: DelegateImpl()), "weak holder")
    Self.expectSame(StructHolder(WeakPair(weak: leaf, unowned: leaf, strong: leaf)), "struct holder")
    Self.expectSame(DerivedNode(), "derived")
  }

  @Test func libraryShapes() {
    for scenario in ShapeScenario.all {
      Self.expectSame(scenario.make(), scenario.name)
    }
    for holder in ShapeHolders.all {
      Self.expectSame(holder.make(), holder.name)
    }
  }

  @Test func thousandRandomGraphs() {
    for seed in 0..<1000 {
      let nodes = RandomGraphTests.makeGraph(count: 1 + seed % 120, seed: UInt64(seed))
      Self.expectSame(nodes[0], "seed \(seed)")
      for node in nodes { node.breakStrong() }
    }
  }
}
