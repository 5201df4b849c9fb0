import Foundation
import RetainGraph
import Samples
import Testing

/// `graph.node(for: object)`: from a live object to its node, checked against the objects the walk
/// itself kept (`ObjectGraph.walk`, which returns `objects[id]` for every node).
@Suite struct NodeLookupTests {
  final class Item {
    var next: Item?
    var owner: AnyObject?
    var handler: (() -> Void)?
  }

  final class Unrelated {}

  @Test(arguments: Sample.all.map(\.name))
  func everyWalkedObjectFindsItsOwnNode(_ name: String) throws {
    let instance = try #require(Sample.named(name)).make()
    defer { instance.breakCycles() }
    let (graph, objects) = ObjectGraph.walk(instance.root)
    var looked = 0
    for (id, object) in objects.enumerated() {
      guard let object else {
        #expect(graph.nodes[id].kind != .object, "\(name): node \(id) is an object node without its object")
        continue
      }
      let node = graph.node(for: object)
      #expect(node == graph.nodes[id], "\(name): \(graph.nodes[id].typeName)")
      looked += 1
    }
    #expect(looked == graph.nodes.filter { $0.kind == .object }.count)
    let inProcess = ObjectGraph(reflecting: instance.root)
    for object in instance.objects {
      #expect(
        inProcess.node(for: object) == graph.node(for: object), "\(name): a plain walk answers the same")
    }
  }

  @Test func objectsOutsideTheGraphHaveNoNode() throws {
    let first = Item()
    let second = Item()
    let outside = Item()
    let ignored = Unrelated()
    first.next = second
    second.owner = ignored
    let graph = ObjectGraph(reflecting: first, options: GraphOptions(ignoredTypes: [Unrelated.self]))
    #expect(graph.node(for: first)?.id == graph.root)
    #expect(graph.node(for: second)?.typeName == graph.nodes[1].typeName)
    #expect(graph.node(for: second)?.id == 1)
    #expect(graph.node(for: outside) == nil, "an object of a walked type that was not reached")
    #expect(graph.node(for: Unrelated()) == nil, "an object of another type")
    #expect(graph.node(for: ignored) == nil, "an object the options said to ignore")
    #expect(graph.node(for: NSObject()) == nil)
  }

  @Test func closureContextsAndValueRootsAreNotObjects() throws {
    let item = Item()
    let captured = Unrelated()
    let alsoCaptured = Unrelated()
    item.handler = { _ = (captured, alsoCaptured) }  // two captures: a context of its own
    let graph = ObjectGraph(reflecting: [item] as Any)
    #expect(graph.nodes[graph.root].kind == .value)
    #expect(graph.node(for: item)?.kind == .object)
    #expect(graph.node(for: captured)?.kind == .object, "an object reached through a closure's capture")
    #expect(graph.node(for: alsoCaptured)?.kind == .object)
    #expect(graph.node(for: alsoCaptured) != graph.node(for: captured))
    let context = try #require(graph.nodes.first { $0.kind == .closure })
    #expect(graph.edges.contains { $0.from == context.id && $0.to == graph.node(for: captured)?.id })
  }

  @Test func aForkedWalkFindsTheSameNodes() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let inProcess = ObjectGraph(reflecting: instance.root)
    let forked = try ObjectGraph(snapshotting: instance.root)
    #expect(!instance.objects.isEmpty)
    for object in instance.objects {
      let node = try #require(forked.node(for: object), "the child's addresses are the parent's")
      #expect(node == inProcess.node(for: object))
    }
    #expect(forked.node(for: Item()) == nil)
  }

  @Test func graphsFromJSONOrPartsKnowNoObjects() throws {
    let item = Item()
    item.next = Item()
    let walked = ObjectGraph(reflecting: item)
    #expect(walked.node(for: item) != nil)
    let read = try ObjectGraph(jsonData: walked.jsonData())
    #expect(read.nodes == walked.nodes)
    #expect(read.node(for: item) == nil)
    let parts = try ObjectGraph(nodes: walked.nodes, edges: walked.edges)
    #expect(parts.node(for: item) == nil)
  }

  @Test func theGraphDoesNotKeepItsObjects() throws {
    weak var probe: Item?
    let graph: ObjectGraph
    do {
      let item = Item()
      item.next = Item()
      probe = item.next
      graph = ObjectGraph(reflecting: item)
      #expect(graph.node(for: try #require(probe))?.id == 1)
    }
    #expect(probe == nil, "node(for:) keeps no reference")
    #expect(graph.nodeCount == 2)
  }
}
