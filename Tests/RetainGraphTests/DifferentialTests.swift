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
    #expect(fast.walkNotes == general.walkNotes, "\(context)")
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

/// Arrays of objects met as values, not as an object's stored property: inside other arrays, as a
/// dictionary's values, in a struct, an optional, an enum payload, a tuple (read from the array's
/// buffer since the benchmark's `[[Leaf]]` shape, which went through `Mirror`).
final class NestedArrays {
  var groups: [[NestedLeaf]] = []
  var keyed: [String: [NestedLeaf]] = [:]
  var boxed = ArrayBox()
  var maybe: [NestedLeaf]? = nil
  var payload: ArrayPayload = .none
  var pair: ([NestedLeaf], Int) = ([], 0)
  var empty: [[NestedLeaf]] = [[], []]
}

final class NestedLeaf {
  var owner: NestedArrays?
  var siblings: [[NestedLeaf]] = []
}

struct ArrayBox {
  var rows: [[NestedLeaf]] = []
}

enum ArrayPayload {
  case none
  case some([NestedLeaf])
}

extension DifferentialTests {
  static func nestedArrays(closingCycle: Bool) -> NestedArrays {
    let root = NestedArrays()
    let leaves = (0..<40).map { _ in NestedLeaf() }
    root.groups = [Array(leaves[0..<3]), [], Array(leaves[3..<6])]
    root.keyed = ["a": Array(leaves[6..<9]), "b": [leaves[9], leaves[0]]]
    root.boxed.rows = [[leaves[10]], [leaves[11], leaves[12]]]
    root.maybe = [leaves[13], leaves[14]]
    root.payload = .some([leaves[15]])
    root.pair = ([leaves[16], leaves[17]], 1)
    leaves[1].siblings = [[leaves[18]], [leaves[19], leaves[1]]]
    if closingCycle { leaves[19].owner = root }
    return root
  }

  @Test func nestedArraysOfObjects() {
    for closingCycle in [false, true] {
      let root = Self.nestedArrays(closingCycle: closingCycle)
      Self.expectSame(root, "nested arrays, cycle: \(closingCycle)")
      Self.expectSame([[root.groups[0][0]], [root.groups[2][1]]] as [[NestedLeaf]], "value root")
      let graph = ObjectGraph(reflecting: root)
      let labels = Set(graph.edges.map(\.label))
      for expected in ["groups[0][1]", "groups[2][0]", "boxed.rows[1][1]", "siblings[1][1]"] {
        #expect(labels.contains(expected), "\(expected) in \(labels.sorted())")
      }
      // The runtime agrees: the root leaks exactly when the nested arrays close a cycle.
      weak let probe = root
      let predicted = graph.predictedLeaks().contains { graph.node($0).typeName.hasSuffix("NestedArrays") }
      #expect(predicted == closingCycle)
      _ = consume root
      #expect((probe != nil) == closingCycle)
      if let leaked = probe { leaked.groups = []; leaked.keyed = [:]; leaked.boxed.rows = [] }
    }
  }

  /// `[AnyObject]` (a stored property and a value root) is read from its buffer like an array of a
  /// class: the same graph as the general path, elements of several classes, a cycle through one.
  @Test func arraysOfAnyObject() {
    let holder = AnyObjectArrayHolder()
    let leaf = Leaf()
    holder.items = [leaf, DerivedNode(), holder, leaf]
    Self.expectSame(holder, "[AnyObject] property")
    Self.expectSame([leaf, holder] as [AnyObject], "[AnyObject] root")
    let graph = ObjectGraph(reflecting: holder)
    #expect(Set(graph.edges.map(\.label)).isSuperset(of: ["items[0]", "items[1]", "items[2]", "items[3]"]))
    weak let probe = holder
    #expect(graph.predictedLeaks().contains { graph.node($0).typeName.hasSuffix("AnyObjectArrayHolder") })
    _ = consume holder
    #expect(probe != nil)
    probe?.items = []
    #expect(probe == nil)
  }
}

final class AnyObjectArrayHolder {
  var items: [AnyObject] = []
}
