import RetainGraph
import RetainGraphTesting
import Samples
import Testing

/// The `check…` functions return the failure as a value: its description is the text the
/// `assert…` twin reports (the goldens compare it whole), its graphs the graphs the text explains.
@Suite struct LeakCheckFailureTests {
  @Test func aModulesFailureCarriesTheGraphItExplains() throws {
    let harness = SampleHarness()
    let failure = try #require(checkNoLeaks(timeout: .milliseconds(100)) { harness.make("viper-module") })
    #expect(!failure.graphs.isEmpty)
    // Each graph is a survivor's, named in the text; one of them holds the cycle the text shows.
    for graph in failure.graphs {
      #expect(failure.description.contains(graph.nodes[graph.root].shortTypeName), "\(failure)")
    }
    let cycle = try #require(failure.graphs.lazy.compactMap(\.cycles.first).first)
    let fix = try #require(cycle.fixPlan.first)
    #expect(failure.description.contains(fix.fix), "\(failure)")
    // The runtime agrees: the survivors are freed once their cycles are broken.
    #expect(harness.breakCyclesAndCheckFreed())
    #expect(checkNoLeaks { harness.make("viper-module-fixed") } == nil)
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func aCyclesFailureIsTheWalkedGraphsReport() throws {
    let leaking = try #require(Sample.named("viper-module")).make()
    defer { leaking.breakCycles() }
    let failure = try #require(checkNoCycles(leaking.root))
    #expect(failure.graphs.count == 1)
    let graph = try #require(failure.graphs.first)
    #expect(failure.description == graph.report())
    #expect(graph.cycles.map(\.members) == ObjectGraph(reflecting: leaking.root).cycles.map(\.members))
    let fixed = try #require(Sample.named("viper-module-fixed")).make()
    #expect(checkNoCycles(fixed.root) == nil)
  }
}
