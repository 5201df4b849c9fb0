import Testing

@testable import RetainGraph

/// An object each level of an endless description holds: one new node per level walked.
final class EndlessLevelMarker {}

/// A value that describes a new value of itself as its child, forever (and a new object at each
/// level, so that the levels walked can be counted).
struct EndlessValue: GraphReflectable {
  var graphChildren: [GraphChild] {
    [.strong("marker", EndlessLevelMarker()), .strong("next", EndlessValue())]
  }
}

/// The same with a plain struct between the levels (one that can hold a reference: a struct that
/// cannot is never walked).
struct EndlessWrapper {
  var inner: EndlessWrapped
  var anchor: AnyObject?
}
struct EndlessWrapped: GraphReflectable {
  var graphChildren: [GraphChild] {
    [
      .strong("marker", EndlessLevelMarker()),
      .strong("wrapper", EndlessWrapper(inner: EndlessWrapped(), anchor: nil)),
    ]
  }
}

/// An object that makes a new object as its child each time it is asked.
final class EndlessObject: GraphReflectable {
  var graphChildren: [GraphChild] { [.strong("next", EndlessObject())] }
}

/// A finite description three levels deep: the twin that must be walked whole.
struct FiniteValue: GraphReflectable {
  var level: Int
  var graphChildren: [GraphChild] {
    level == 0
      ? [.strong("marker", EndlessLevelMarker())]
      : [.strong("marker", EndlessLevelMarker()), .strong("next", FiniteValue(level: level - 1))]
  }
}

final class DescriptionHolder<Description> {
  var description: Description
  init(_ description: Description) { self.description = description }
}

@Suite("GraphReflectable: an endless description is bounded by the limits")
struct EndlessReflectableTests {
  /// Values describing values forever: cut at maxDepth levels when it is set, at 1,000 otherwise;
  /// the graph says it is truncated and why.
  @Test(arguments: [Optional(5), nil])
  func endlessValuesAreCutByDepth(maxDepth: Int?) {
    let graph = ObjectGraph(
      reflecting: DescriptionHolder(EndlessValue()), options: GraphOptions(maxDepth: maxDepth))
    let levels = graph.nodes.filter { $0.typeName.hasSuffix("EndlessLevelMarker") }.count
    #expect(graph.isTruncated)
    #expect(levels == (maxDepth ?? Walker.customValueNestingLimit), "\(levels) levels")
    #expect(
      graph.walkNotes.contains { $0.kind == .truncated && $0.description.contains("GraphReflectable") },
      "\(graph.walkNotes)")
  }

  /// With a plain struct between the levels the nesting starts again at each level: the count of
  /// described values (at most maxNodes) ends the walk.
  @Test func endlessWrappedValuesAreCutByCount() {
    let graph = ObjectGraph(
      reflecting: DescriptionHolder(EndlessWrapped()), options: GraphOptions(maxNodes: 500))
    #expect(graph.isTruncated)
    #expect(graph.nodes.count <= 500)
    #expect(graph.walkNotes.contains { $0.kind == .truncated }, "\(graph.walkNotes)")
  }

  /// The same with the default limits: the path to the values (each level a longer one, as costly
  /// as it is long) ends it.
  @Test func endlessWrappedValuesAreCutByTheirPath() {
    let graph = ObjectGraph(reflecting: DescriptionHolder(EndlessWrapped()))
    #expect(graph.isTruncated)
    #expect(graph.nodes.count < 2_000, "\(graph.nodes.count) nodes")
    #expect(
      graph.walkNotes.contains {
        $0.kind == .truncated && $0.description.contains("the path to them passes")
      },
      "\(graph.walkNotes)")
  }

  /// New objects forever: nodes, cut at maxNodes, or at maxDepth.
  @Test func endlessObjectsAreCutByTheLimits() {
    let byCount = ObjectGraph(reflecting: EndlessObject(), options: GraphOptions(maxNodes: 1_000))
    #expect(byCount.isTruncated)
    #expect(byCount.nodes.count == 1_000)
    let byDepth = ObjectGraph(reflecting: EndlessObject(), options: GraphOptions(maxDepth: 10))
    #expect(byDepth.isTruncated)
    #expect(byDepth.nodes.count == 11)
  }

  /// The twin: a finite description is walked whole, with no note.
  @Test func finiteDescriptionIsWalkedWhole() {
    let graph = ObjectGraph(reflecting: DescriptionHolder(FiniteValue(level: 3)))
    #expect(!graph.isTruncated)
    #expect(graph.walkNotes.isEmpty, "\(graph.walkNotes)")
    #expect(graph.nodes.filter { $0.typeName.hasSuffix("EndlessLevelMarker") }.count == 4)
  }
}
