import GRDBTwin
import Observation
import Testing

@testable import RetainGraph

// Libraries' internals are never the fix (issue 21.4): a loop inside Observation is the library's,
// a closure of yours that Observation keeps is advised as yours, and a GRDB observer added for the
// database's lifetime is advised with GRDB's way out, not as GRDB's property.

@Observable final class TrackedModel {
  var value = 0
}

/// Observes its model with `withObservationTracking`, its `onChange` closure capturing it weakly
/// or strongly.
final class TrackingScreen: @unchecked Sendable {
  let model = TrackedModel()
  var changes = 0

  func observeWeakly() {
    withObservationTracking({ _ = model.value }, onChange: { [weak self] in self?.changes += 1 })
  }

  func observeStrongly() {
    withObservationTracking({ _ = model.value }, onChange: { self.changes += 1 })
  }
}

/// A GRDB-style transaction observer that holds its database queue.
final class PlayerTracker: TransactionObserver {
  let dbQueue = DatabaseQueue()
  var commits = 0

  func databaseDidCommit(_ db: Database) { commits += 1 }

  static func make(extent: Database.TransactionObservationExtent) -> PlayerTracker {
    let tracker = PlayerTracker()
    tracker.dbQueue.add(transactionObserver: tracker, extent: extent)
    return tracker
  }
}

/// The GRDB twin, named as a library of this test target through the options (its ways out are
/// GRDB's: a module no known library has takes a known library's way out for the same holder).
let grdbTwin = LibraryRule(name: "the GRDB twin", modules: ["GRDBTwin"])

@Suite("Libraries' internals are never the fix")
struct LibraryAdviceTests {

  // In both builds: without the binary readers Observation's tracking closure is not named (it is
  // `closure at …willSetTracking`), yet only Observation's objects hold it, so its loop is still
  // Observation's and no cycle of yours is reported (issue 40.8).
  @Test func aWeakOnChangeLeavesOnlyObservationsOwnLoop() {
    let (graph, probe) = walkThenRelease {
      let screen = TrackingScreen()
      screen.observeWeakly()
      return screen
    }
    #expect(probe.object == nil, "the runtime kept the screen")
    #expect(!graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    // Observation keeps its own loop while the tracking is installed: nothing of yours to weaken,
    // so `assertNoCycles` (which fails only on a cycle that is not library-only) passes.
    #expect(!graph.cycles.isEmpty)
    #expect(graph.cycles.allSatisfy { $0.isLibraryOnly }, "\(graph.report())")
    // Nothing to weaken, so no reference is suggested.
    #expect(graph.cycles.allSatisfy { $0.suggestedEdge == nil && $0.fixPlan.isEmpty })
  }

  // Needs the binary readers: what it checks is found through symbols (hidden field types, key

  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    @Test func aStrongOnChangeIsAdvisedAsTheAppsClosure() throws {
      let (graph, probe) = walkThenRelease {
        let screen = TrackingScreen()
        screen.observeStrongly()
        return screen
      }
      #expect(probe.object != nil, "the runtime freed the screen")
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      let cycle = try #require(graph.cycles.first { !$0.isLibraryOnly })
      #expect(
        cycle.fixPlan.map(\.fix) == [
          "capture `[weak self]` in closure #2 in implicit closure #1 in TrackingScreen.observeStrongly() "
            + "(passed to Observation)"
        ])
      #expect(cycle.fixPlan.map(\.idiom) == [.closureCapture])
      #expect(cycle.suggestedEdge == cycle.fixPlan.first?.edge)
      #expect(
        cycle.fixPlan.map(\.advice) == [
          .weakCapture(
            of: .selfObject, closure: "closure #2 in implicit closure #1 in TrackingScreen.observeStrongly()",
            place: "passed to Observation")
        ])
      // The one change fires `onChange` once, which ends the tracking and frees the screen.
      (probe.object as? TrackingScreen)?.model.value += 1
      #expect(probe.object == nil, "the change did not end the tracking")
    }
  #endif

  @Test func aDatabaseLifetimeObserverIsAdvisedWithGRDBsWayOut() throws {
    let (graph, probe) = walkThenRelease { PlayerTracker.make(extent: .databaseLifetime) }
    #expect(probe.object != nil, "the runtime freed the tracker")
    #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    let cycle = try #require(graph.cycles.first)
    #expect(
      cycle.fixPlan.map(\.fix) == [
        "TransactionObservation.strongObserver is GRDBTwin's reference to PlayerTracker: remove the "
          + "observer when done (`remove(transactionObserver:)`), or add it with extent "
          + "`.observerLifetime` (GRDB then holds it weakly)"
      ])
    #expect(cycle.fixPlan.map(\.idiom) == [.libraryReference])
    #expect(
      cycle.fixPlan.map(\.advice) == [
        .libraryReference(
          holding: "TransactionObservation.strongObserver is GRDBTwin's reference to PlayerTracker",
          module: "GRDBTwin", target: "PlayerTracker",
          wayOut: "remove the observer when done (`remove(transactionObserver:)`), or add it with extent "
            + "`.observerLifetime` (GRDB then holds it weakly)")
      ])
    // The way out works: removing the observer frees the tracker.
    removeObserver(probe)
    #expect(probe.object == nil, "removing the observer did not free the tracker")
  }

  @Test func withoutNamingTheModuleTheLibrarysPropertyWouldBeWeakened() throws {
    // What the advice was before the module was named (the report): GRDB's own property.
    let (graph, probe) = walkThenRelease(
      options: GraphOptions(libraryModules: GraphOptions.knownLibraryModules)
    ) { PlayerTracker.make(extent: .databaseLifetime) }
    #expect(probe.object != nil)
    #expect(graph.cycles.first?.fixPlan.map(\.fix) == ["make TransactionObservation.strongObserver weak"])
    #expect(
      graph.cycles.first?.fixPlan.map(\.advice) == [.weakProperty("TransactionObservation.strongObserver")])
    removeObserver(probe)
  }

  @Test func anObserverLifetimeObserverIsFreedAndNoCycleIsSeen() {
    let (graph, probe) = walkThenRelease { PlayerTracker.make(extent: .observerLifetime) }
    #expect(probe.object == nil, "the runtime kept the tracker")
    #expect(graph.cycles.isEmpty, "\(graph.report())")
    #expect(!graph.predictedLeaks().contains(graph.root))
  }

  @Test func theLibrariesOfTheOptionsJoinTheKnownOnes() {
    #expect(GraphOptions(libraries: [grdbTwin]).planLibraryModules.contains("GRDBTwin"))
    #expect(
      GraphOptions(libraries: [grdbTwin]).planLibraryModules.isSuperset(of: GraphOptions.knownLibraryModules))
    #expect(!GraphOptions().planLibraryModules.contains("GRDBTwin"))
    #expect(GraphOptions.defaultLibraryModules.isSuperset(of: GraphOptions.knownLibraryModules))
    #expect(Set(GraphOptions.knownLibraries.flatMap(\.modules)) == GraphOptions.knownLibraryModules)
    #expect(GraphOptions.knownLibraries.contains { $0.name == "GRDB" && !$0.wayOuts.isEmpty })
  }

  /// A rule of the test target's own says its way out; the runtime agrees that it is one.
  @Test func aRuleOfYourOwnSaysItsWayOut() throws {
    let own = LibraryRule(
      name: "the GRDB twin", modules: ["GRDBTwin"],
      wayOuts: [.init(holder: "TransactionObservation", advice: "remove the tracker from its queue")])
    let (graph, probe) = walkThenRelease(options: GraphOptions(libraries: [own])) {
      PlayerTracker.make(extent: .databaseLifetime)
    }
    #expect(probe.object != nil, "the runtime freed the tracker")
    let cycle = try #require(graph.cycles.first)
    #expect(
      cycle.fixPlan.map(\.advice) == [
        .libraryReference(
          holding: "TransactionObservation.strongObserver is GRDBTwin's reference to PlayerTracker",
          module: "GRDBTwin", target: "PlayerTracker", wayOut: "remove the tracker from its queue")
      ])
    removeObserver(probe)
    #expect(probe.object == nil, "removing the observer did not free the tracker")
  }

  @Test func theEnvironmentVariablesNamesAreSplitAtCommas() {
    #expect(GraphOptions.libraryModules(fromEnvironmentValue: nil) == [])
    #expect(GraphOptions.libraryModules(fromEnvironmentValue: "") == [])
    #expect(
      GraphOptions.libraryModules(fromEnvironmentValue: " Vendor, VendorKit ,,\tThird ") == [
        "Vendor", "VendorKit", "Third",
      ])
  }

  @Test func thePackagesSwiftUsersDependOnAreKnown() {
    let expected: Set<String> = [
      "GRDB", "Vapor", "NIO", "NIOCore", "NIOPosix", "AsyncHTTPClient", "Fluent", "FluentKit", "Leaf",
      "LeafKit", "Hummingbird", "HummingbirdCore", "FlyingFox", "FlyingSocks", "MCP", "Dependencies",
      "ComposableArchitecture", "CasePaths", "IdentifiedCollections", "Perception", "Sharing", "CustomDump",
      "IssueReporting", "ConcurrencyExtras", "Clocks", "Logging", "ServiceLifecycle", "GRPC", "GRPCCore",
      "Observation", "Combine", "OpenCombine",
    ]
    #expect(expected.subtracting(GraphOptions.knownLibraryModules) == [])
  }
}

/// Removes the probed tracker from its database's observers (in a frame of its own, so that no
/// strong reference to it is left behind).
@inline(never) private func removeObserver(_ probe: WeakProbe) {
  if let tracker = probe.object as? PlayerTracker { tracker.dbQueue.remove(transactionObserver: tracker) }
}

/// Walks the graph from what `make` returns, releases it, and probes it weakly.
@inline(never) private func walkThenRelease(
  options: GraphOptions? = nil, _ make: () -> AnyObject
) -> (ObjectGraph, WeakProbe) {
  let root = make()
  let graph = ObjectGraph(reflecting: root, options: options ?? GraphOptions(libraries: [grdbTwin]))
  return (graph, WeakProbe(root))
}
