import RetainGraph
import RetainGraphTesting
import Samples
import Testing

/// The `check…` functions return the failure as a value: its description is the text the
/// `assert…` twin reports (the goldens compare it whole), its graphs the graphs the text explains;
/// the deprecated `verify…` functions return the same text.
@Suite struct LeakCheckFailureTests {
  let old: any OldVerifyUses.Type = OldVerifyNames.self

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

  @Test func theDeprecatedVerifyFunctionsReturnTheDescription() throws {
    let harness = SampleHarness()
    let leaking = try #require(Sample.named("viper-module")).make()
    defer { leaking.breakCycles() }
    #expect(old.verifyNoCycles(leaking.root) == checkNoCycles(leaking.root)?.description)
    #expect(old.verifyNoCycles(leaking.root)?.contains("fix") == true)
    let text = try #require(old.verifyNoLeaks { harness.make("viper-module") })
    let failure = try #require(checkNoLeaks(timeout: .milliseconds(100)) { harness.make("viper-module") })
    #expect(text == failure.description)
    #expect(old.verifyInstances(of: Presenter.self, atMost: 1, in: leaking.root) == nil)
    let instances = old.verifyInstances(of: Presenter.self, atMost: 0, in: leaking.root)
    #expect(instances != nil)
    #expect(instances == checkInstances(of: Presenter.self, atMost: 0, in: leaking.root)?.description)
    #expect(harness.breakCyclesAndCheckFreed())
  }
}

protocol OldVerifyUses {
  static func verifyNoCycles(_ root: Any) -> String?
  static func verifyNoLeaks(_ make: () -> AnyObject) -> String?
  static func verifyInstances<T>(of type: T.Type, atMost limit: Int, in root: Any) -> String?
}

/// The deprecated names, spelled inside deprecated members called through a protocol, so that the
/// build stays warning-free while they are compiled.
enum OldVerifyNames: OldVerifyUses {
  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func verifyNoCycles(_ root: Any) -> String? { RetainGraphTesting.verifyNoCycles(root) }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func verifyNoLeaks(_ make: () -> AnyObject) -> String? {
    RetainGraphTesting.verifyNoLeaks(timeout: .milliseconds(100), make)
  }

  @available(*, deprecated, message: "spells the deprecated names on purpose")
  static func verifyInstances<T>(of type: T.Type, atMost limit: Int, in root: Any) -> String? {
    RetainGraphTesting.verifyInstances(of: type, atMost: limit, in: root)
  }
}
