import Foundation
import RetainGraph
import Samples
import Testing

/// ``Cycle/signature``: the same cycle gives one signature from any root, different cycles two.
@Suite("Cycle signatures")
struct CycleSignatureTests {
  /// Every sample's cycles walked from the sample's root and from each of its objects: a cycle found
  /// from another root (another member, or an object outside it) has a signature of the root's walk.
  @Test(arguments: Sample.all.filter(\.hasCycle).map(\.name))
  func aCycleHasOneSignatureFromAnyRoot(name: String) throws {
    let instance = try #require(Sample.named(name)).make()
    defer { instance.breakCycles() }
    let fromRoot = ObjectGraph(reflecting: instance.root)
    let signatures = Set(fromRoot.cycles.map(\.signature))
    #expect(!signatures.isEmpty)
    var comparedFromAMember = false
    for object in instance.objects where object !== instance.root {
      let graph = ObjectGraph(reflecting: object)
      for cycle in graph.cycles {
        #expect(signatures.contains(cycle.signature), "\(cycle.signature.text)")
        comparedFromAMember = true
      }
    }
    // Twice from the same root: the same signatures, in the same order.
    #expect(
      ObjectGraph(reflecting: instance.root).cycles.map(\.signature) == fromRoot.cycles.map(\.signature))
    if instance.objects.count > 1 { #expect(comparedFromAMember) }
  }

  @Test func theVIPERModulesSignatureNamesItsTypesAndReferences() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    try #require(graph.cycles.count == 1)
    #expect(
      graph.cycles[0].signature.text == """
        object Interactor
        object Presenter
        reference Interactor output (strong) Presenter
        reference Presenter interactor (strong) Interactor
        """)
    #expect(graph.cycles[0].signature.description.count == 16)
    // From the presenter, a member: the view is outside the graph's cycle either way.
    let presenter = try #require(instance.objects.first { $0 is Presenter })
    #expect(ObjectGraph(reflecting: presenter).cycles.map(\.signature) == graph.cycles.map(\.signature))
  }

  /// Different cycles give different signatures (texts and hashes): every sample's cycles, each
  /// sample's own distinct from the others'.
  @Test func differentCyclesHaveDifferentSignatures() throws {
    var bySample: [String: Set<CycleSignature>] = [:]
    for sample in Sample.all where sample.hasCycle {
      let instance = sample.make()
      defer { instance.breakCycles() }
      bySample[sample.name] = Set(ObjectGraph(reflecting: instance.root).cycles.map(\.signature))
    }
    let all = bySample.values.reduce(into: Set<CycleSignature>()) { $0.formUnion($1) }
    #expect(Set(all.map(\.description)).count == all.count)
    let retainCycle = try #require(bySample["retain-cycle"])
    let viper = try #require(bySample["viper-module"])
    #expect(retainCycle.isDisjoint(with: viper))
  }

  /// Element indices and dictionary keys do not enter the signature; a reference's ownership does.
  @Test func elementIndicesAndKeysAreLeftOut() throws {
    final class Node {
      var children: [Node] = []
      var byName: [String: Node] = [:]
      weak var parent: Node?
    }
    let first = Node()
    let second = Node()
    first.children = [Node(), second]
    second.byName = ["a key": first]
    second.parent = first
    defer { second.byName = [:] }
    let graph = ObjectGraph(reflecting: first)
    try #require(graph.cycles.count == 1)
    let text = graph.cycles[0].signature.text
    #expect(text.contains("children[]"), "\(text)")
    #expect(text.contains("byName[]"), "\(text)")
    #expect(!text.contains("a key"), "\(text)")
    #expect(!text.contains("[1]"), "\(text)")
    #expect(text.contains("parent (weak)"), "\(text)")
  }
}
