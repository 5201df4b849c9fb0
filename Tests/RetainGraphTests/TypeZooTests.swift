import Foundation
import RetainGraph
import Testing

@Suite("Type zoo: nothing crashes")
struct TypeZooTests {
  final class ObjCStyle: NSObject {
    var leaf = Leaf()
    weak var weakLeaf: Leaf?
  }

  actor Counter {
    var leaf = Leaf()
    var count = 0
  }

  final class Generic<T> {
    var value: T
    init(_ value: T) { self.value = value }
  }

  /// Describes a new object every time it is asked: only the node limit stops it. (A custom
  /// mirror would not be followed: stored fields are the truth for structs.)
  struct Endless: GraphReflectable {
    var tag = Leaf()
    var graphChildren: [GraphChild] { [.strong("next", EndlessBox())] }
  }
  final class EndlessBox: GraphReflectable {
    var graphChildren: [GraphChild] { [.strong("next", Endless())] }
  }

  final class Zoo {
    var metatype: Any.Type = Int.self
    var classType: AnyClass = Leaf.self
    var keyPath: AnyKeyPath = \Leaf.value
    var pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    var rawPointer: UnsafeRawPointer? = nil
    var object = ObjCStyle()
    var counter = Counter()
    var generic = Generic([Leaf()])
    var genericClosure = Generic<() -> Void>({})
    var linked = LinkedValue.node(Leaf(), .node(Leaf(), .end))
    var closure: () -> Int = { 42 }
    var thin: @convention(thin) () -> Void = {}
    var cFunction: @convention(c) () -> Void = {}
    var numbers = [Int](repeating: 1, count: 1_000_000)
    var error: any Error = CocoaError(.fileNoSuchFile)
    var date = Date()
    var url = URL(fileURLWithPath: "/tmp")
    var data = Data(count: 100)
    var anyHashable = AnyHashable(7)
    deinit { pointer.deallocate() }
  }

  @Test func zooWalksWithoutCrashing() {
    let zoo = Zoo()
    zoo.object.weakLeaf = zoo.object.leaf
    let graph = ObjectGraph(reflecting: zoo)
    let labels = Set(graph.edges.map(\.label))
    #expect(labels.isSuperset(of: ["object", "counter", "generic", "linked.node.0", "linked.node.1.node.0"]))
    #expect(graph.edges.contains { $0.label == "weakLeaf" && $0.ownership == .weak })
    #expect(graph.edges.contains { $0.label == "leaf" && graph.nodes[$0.from].shortTypeName == "Counter" })
    #expect(graph.cycles.isEmpty)
    #expect(!graph.isTruncated)
  }

  @Test func endlessCustomMirrorStopsAtTheNodeLimit() {
    let graph = ObjectGraph(reflecting: EndlessBox(), options: GraphOptions(maxNodes: 500))
    #expect(graph.isTruncated)
    #expect(graph.nodes.count == 500)
    #expect(graph.report().hasPrefix("warning:"))
  }

  @Test func danglingUnownedInAStructAndAnExistential() {
    struct Pair {
      unowned var owner: OwnerFixture
    }
    final class Holder {
      var pair: Pair
      unowned var existential: AnyObject
      init(_ owner: OwnerFixture) {
        pair = Pair(owner: owner)
        existential = owner
      }
    }
    let holder = Holder(OwnerFixture())
    let graph = ObjectGraph(reflecting: holder)
    #expect(Set(graph.danglingReferences.map(\.label)) == ["pair.owner", "existential"])
  }
}
