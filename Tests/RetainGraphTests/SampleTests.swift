import Foundation
import RetainGraph
import RetainGraphTestSupport
import Samples
import Testing

@Suite("Samples")
struct SampleTests {
  @Test(arguments: Sample.all.map(\.name))
  func cyclePresenceMatchesTheSample(name: String) throws {
    let sample = try #require(Sample.named(name))
    let instance = sample.make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    #expect(graph.cycles.isEmpty != sample.hasCycle, "\(graph.report())")
    #expect(graph.report().isEmpty == (!sample.hasCycle && graph.danglingReferences.isEmpty))
  }

  // Needs the binary readers: it checks names read from the symbol tables (BinaryReadersTests

  // checks the names without them).
  #if BinaryReaders
    /// Each sample's report, DOT and JSON snapshot, whole, against `__Snapshots__/SampleTests/`.
    @Test(arguments: Sample.all.map(\.name))
    func reportDOTAndJSONMatchTheirGoldenFiles(name: String) throws {
      let instance = try #require(Sample.named(name)).make()
      defer { instance.breakCycles() }
      let graph = ObjectGraph(reflecting: instance.root)
      assertGolden(graph.report(), named: "\(name).report", pathExtension: "txt")
      assertGolden(graph.dot(), named: name, pathExtension: "dot")
      assertGolden(String(decoding: graph.jsonData(), as: UTF8.self), named: name, pathExtension: "json")
    }
  #endif

  @Test func retainCycle() throws {
    let instance = try #require(Sample.named("retain-cycle")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    #expect(graph.cycles.count == 1)
    #expect(graph.cycles[0].members == [0, 1])
    // No idiom tells CycleA.b from CycleB.a: the plan takes the first by name, from either root.
    #expect(graph.cycles[0].suggestedEdge?.label == "b")
    #expect(graph.cycles[0].fixPlan.map(\.idiom) == [.structure])
  }

  @Test func viperModule() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let graph = ObjectGraph(reflecting: instance.root)
    #expect(graph.cycles.count == 1)
    let cycle = graph.cycles[0]
    #expect(cycle.members.map { graph.nodes[$0].shortTypeName } == ["Presenter", "Interactor"])
    #expect(cycle.suggestedEdge?.label == "output")
    #expect(cycle.pathFromRoot.map(\.label) == ["presenter"])
    #expect(cycle.path.map(\.label) == ["interactor", "output"])
    #expect(graph.edges.contains { $0.label == "view" && $0.ownership == .weak })
    // Where to make the edit: read from the debug information, which a build without the binary
    // readers does not read.
    #if BinaryReaders
      let place = " — Samples/ViperModule.swift:16"
    #else
      let place = ""
    #endif
    #expect(
      graph.report() == """
        1 retain cycle reachable from ViewController (2 objects); 1 reference to weaken

        ViewController
          ↓ presenter
        Presenter
          ↓ interactor
        Interactor
          ↓ output   ← break this
        Presenter (loop closes)
        fix: make Interactor.output weak\(place)
        """)
    #expect(graph.predictedLeaks() == [1, 2])
    #expect(graph.predictedLeaks().map { graph.node($0).shortTypeName } == ["Presenter", "Interactor"])
  }

  @Test func viperModuleFixedAndDelegate() throws {
    for name in ["viper-module-fixed", "delegate"] {
      let instance = try #require(Sample.named(name)).make()
      let graph = ObjectGraph(reflecting: instance.root)
      #expect(graph.cycles.isEmpty)
      #expect(graph.edges.contains { $0.ownership == .weak })
      #expect(graph.predictedLeaks().isEmpty)
    }
  }

  @Test func danglingUnowned() throws {
    let instance = try #require(Sample.named("dangling-unowned")).make()
    let graph = ObjectGraph(reflecting: instance.root)
    #expect(graph.danglingReferences.count == 1)
    assertGolden(graph.report(), named: "dangling-unowned.report")
  }

  @Test func samplesFreeEverythingOnceTheirCyclesAreBroken() throws {
    for sample in Sample.all {
      var probes: [WeakProbe] = []
      do {
        let instance = sample.make()
        probes = instance.objects.map(WeakProbe.init)
        instance.breakCycles()
      }
      #expect(probes.allSatisfy { $0.object == nil }, "\(sample.name) leaked after breakCycles()")
    }
  }
}
