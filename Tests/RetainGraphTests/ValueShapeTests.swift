import DequeModule
import Foundation
import OrderedCollections
import RetainGraphStorage
import Testing

@testable import RetainGraph

@Suite("Value shapes")
struct ValueShapeTests {
  final class Shapes {
    var tuple: (Leaf, Int, named: Leaf)
    var optional: Leaf?
    var doubleOptional: Leaf??
    var any: Any
    var anyObject: AnyObject
    var existential: any Delegate
    var array: [Leaf]
    var dictionary: [String: Leaf]
    var objectKeys: [Int: Leaf]
    var set: Set<HashableLeaf>
    var state: LoadState
    var loaded: LoadState
    var idle: LoadState = .idle
    var linked: LinkedValue
    var deque: Deque<Leaf>
    var ordered: OrderedDictionary<String, Leaf>
    var nested: [[Leaf]]
    var ints = Array(0..<1000)

    init() {
      tuple = (Leaf(), 1, named: Leaf())
      optional = Leaf()
      doubleOptional = .some(Leaf())
      any = Leaf()
      anyObject = Leaf()
      existential = DelegateImpl()
      array = [Leaf(), Leaf()]
      dictionary = ["done": Leaf()]
      objectKeys = [7: Leaf()]
      set = [HashableLeaf()]
      state = .loading(Leaf())
      loaded = .loaded(Leaf(), count: 2)
      linked = .node(Leaf(), .node(Leaf(), .end))
      deque = [Leaf()]
      ordered = ["first": Leaf()]
      nested = [[Leaf()], [Leaf(), Leaf()]]
    }
  }

  final class HashableLeaf: Hashable {
    static func == (lhs: HashableLeaf, rhs: HashableLeaf) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  }

  @Test func everyShapeGivesLabelledEdges() {
    let shapes = Shapes()
    let graph = ObjectGraph(reflecting: shapes)
    let labels = Set(graph.edges.map(\.label))
    let expected: Set<String> = [
      "tuple.0", "tuple.named", "optional", "doubleOptional", "any", "anyObject", "existential",
      "array[0]", "array[1]", #"dictionary["done"]"#, "objectKeys[7]", "set[0]", "state.loading",
      "loaded.loaded.0", "linked.node.0", "linked.node.1.node.0", "deque[0]", #"ordered["first"]"#,
      "nested[0][0]", "nested[1][0]", "nested[1][1]",
    ]
    #expect(labels.isSuperset(of: expected), "missing: \(expected.subtracting(labels))")
    #expect(graph.edges.allSatisfy { $0.ownership == .strong })
    #expect(graph.nodes.count == 1 + expected.count)
    #expect(graph.cycles.isEmpty)
    #expect(graph.report() == "")
  }

  @Test func sharedObjectIsOneNode() {
    let leaf = Leaf()
    let holders = [Holder(leaf), Holder(leaf)]
    let graph = ObjectGraph(reflecting: holders)
    #expect(graph.nodes[0].kind == .value)
    #expect(graph.nodes.filter { $0.typeName.hasSuffix(".Leaf") }.count == 1)
    #expect(graph.edges.count == 4)
  }

  @Test func valueRootAndOptionalRoot() {
    let leaf = Leaf()
    let pair = WeakPair(weak: leaf, unowned: leaf, strong: leaf)
    let graph = ObjectGraph(reflecting: pair)
    #expect(graph.nodes[0].kind == .value)
    #expect(
      graph.edgeDescriptions.sorted() == [
        "WeakPair.strong -> Leaf (strong)", "WeakPair.unowned -> Leaf (unowned)",
        "WeakPair.weak -> Leaf (weak)",
      ])
    let optional: Holder? = Holder(leaf)
    let optionalGraph = ObjectGraph(reflecting: optional as Any)
    #expect(optionalGraph.nodes[0].kind == .object)
    #expect(optionalGraph.nodes[0].shortTypeName == "Holder")
  }

  @Test func inheritedPropertiesAreWalked() {
    let node = DerivedNode()
    let weakTarget = Leaf()
    node.baseWeak = weakTarget
    let graph = ObjectGraph(reflecting: node)
    #expect(
      graph.edgeDescriptions.sorted() == [
        "DerivedNode.baseLeaf -> Leaf (strong)", "DerivedNode.baseWeak -> Leaf (weak)",
        "DerivedNode.derivedLeaf -> Leaf (strong)",
      ])
  }

  @Test func podCollectionsAreSkippedQuickly() {
    final class Big {
      var numbers = [Int](repeating: 7, count: 1_000_000)
      var names = ["a": 1]
      var leaf = Leaf()
    }
    let graph = ObjectGraph(reflecting: Big())
    #expect(graph.nodes.count == 2)
    #expect(graph.edges.map(\.label) == ["leaf"])
  }

  @Test func limitsTruncateAndSaySo() {
    let head = ListNode.make(count: 50)
    defer { ListNode.dismantle(head) }
    let limited = ObjectGraph(reflecting: head, options: GraphOptions(maxNodes: 10))
    #expect(limited.isTruncated)
    #expect(limited.nodes.count == 10)
    #expect(limited.report().hasPrefix("warning: a limit stopped the walk at 10 nodes"))
    let shallow = ObjectGraph(reflecting: head, options: GraphOptions(maxDepth: 3))
    #expect(shallow.isTruncated)
    #expect(shallow.nodes.count == 4)
    let whole = ObjectGraph(reflecting: head)
    #expect(!whole.isTruncated)
    #expect(whole.nodes.count == 50)
  }

  @Test func ignoredTypesAndLabels() {
    let shapes = Shapes()
    let withoutLeaves = ObjectGraph(reflecting: shapes, options: GraphOptions(ignoredTypes: [Leaf.self]))
    #expect(withoutLeaves.nodes.allSatisfy { !$0.typeName.hasSuffix(".Leaf") })
    let withoutArray = ObjectGraph(
      reflecting: shapes,
      options: GraphOptions(ignoredReferences: [
        .property("array", of: "*"), .property("optional", of: "ValueShapeTests.Shapes"),
      ]))
    let labels = Set(withoutArray.edges.map(\.label))
    #expect(!labels.contains("array[0]") && !labels.contains("array[1]") && !labels.contains("optional"))
    // Only those properties: the others, `doubleOptional` beside `optional`, stay.
    #expect(withoutArray.edges.contains { $0.property == "doubleOptional" })
    #expect(withoutArray.edges.contains { $0.property == "tuple" })
  }

  @Test func customReflectionIsConsulted() {
    final class Opaque: GraphReflectable {
      let hidden: Unmanaged<Leaf>
      let backup = Leaf()
      init() { hidden = Unmanaged.passRetained(Leaf()) }
      deinit { hidden.release() }
      var graphChildren: [GraphChild] {
        [.strong("hidden", hidden.takeUnretainedValue()), .weak("backup", backup)]
      }
    }
    let graph = ObjectGraph(reflecting: Opaque())
    #expect(
      graph.edgeDescriptions.sorted() == ["Opaque.backup -> Leaf (weak)", "Opaque.hidden -> Leaf (strong)"])
  }

  /// A value made on demand (by a custom reflection) holds the only references to its objects; the
  /// walk must keep them alive until it has recorded them.
  @Test func freshValuesKeepTheirObjectsAliveWhileWalked() {
    struct Fresh {
      var tagged: [String: Leaf]
      var leaf: Leaf
      var handler: () -> Void
    }
    final class Factory: GraphReflectable {
      var graphChildren: [GraphChild] {
        let captured = Leaf()
        return [.strong("made", Fresh(tagged: ["a": Leaf()], leaf: Leaf(), handler: { _ = captured }))]
      }
    }
    let graph = ObjectGraph(reflecting: Factory())
    #expect(
      graph.edgeDescriptions == [
        #"Factory.made.tagged["a"] -> Leaf (strong)"#, "Factory.made.leaf -> Leaf (strong)",
        "Factory.made.handler (closure) → capture 0 -> Leaf (strong)",
      ])
  }

  /// Element indices beyond what an edge packs with its label are kept beside the edges: every
  /// index is there, and the graph still has one label for the array (not one per element).
  @Test func largeArraysKeepEveryIndex() throws {
    final class Big {
      var items = (0..<70_000).map { _ in Leaf() }
    }
    let graph = ObjectGraph(reflecting: Big())
    #expect(graph.nodeCount == 70_001)
    #expect(graph.edge(at: 65_535).label == "items[65535]")
    #expect(graph.edge(at: 65_536).label == "items[65536]")
    #expect(graph.edge(at: 69_999).label == "items[69999]")
    #expect(Set(graph.edges.map(\.to)).count == 70_000)
    #expect(graph.storage.labels.count < 4, "\(graph.storage.labels.count) labels")
    #expect(graph.storage.wideLabels.pairs.count == 70_000 - 65_536)
    let read = try ObjectGraph(jsonData: graph.jsonData())
    #expect(read.edges == graph.edges)
  }
}
