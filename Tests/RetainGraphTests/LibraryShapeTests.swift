import Foundation
import RetainGraphTestSupport
import Testing

@testable import RetainGraph

/// A scenario: makes a root in a cycle through a library shape, in its own frame.
struct ShapeScenario: Sendable, CustomTestStringConvertible {
  let name: String
  let make: @Sendable () -> AnyObject
  var testDescription: String { name }

  static let all: [ShapeScenario] = [
    ShapeScenario(name: "custom-mirror struct") { CustomMirrorViewModel.make() },
    ShapeScenario(name: "custom-mirror enum") { CustomMirrorViewModel.makeWithHiddenEnum() },
    ShapeScenario(name: "Mutex of closures") { MutexViewModel.make() },
    ShapeScenario(name: "locked value box") { LockedBoxViewModel.make() },
    ShapeScenario(name: "type-erased cancellable") { CancellableViewModel.make() },
    ShapeScenario(name: "generic store token") { StoreViewModel.make() },
    ShapeScenario(name: "two-level generic closure") { StoreViewModel.makeObserving() },
    ShapeScenario(name: "constrained existential in a dictionary") { RouterApp.make() },
    ShapeScenario(name: "constrained existential optional") { RouterApp.makeWithFallback() },
    ShapeScenario(name: "class-bound constrained existential") { ObjectRouterApp.make() },
    ShapeScenario(name: "method reference") { PricesViewModel.make() },
  ]
}

@Suite("Library shapes: every reference real libraries hold")
struct LibraryShapeTests {
  // Needs the binary readers: what it checks is found through symbols (hidden field types, key
  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// The walk finds the cycle the runtime confirms: the root survives its release exactly when
    /// `predictedLeaks()` says so, and nothing is noted as unreadable.
    @Test(arguments: ShapeScenario.all)
    func cycleIsFoundAndConfirmedByTheRuntime(_ scenario: ShapeScenario) {
      let (graph, probe) = walkAndRelease(scenario)
      #expect(graph.walkNotes == [], "\(graph.report())")
      #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
      #expect(probe.object != nil, "the runtime says the root was freed")
    }
  #endif

  @inline(never)
  private func walkAndRelease(_ scenario: ShapeScenario) -> (ObjectGraph, WeakProbe) {
    let root = scenario.make()
    let graph = ObjectGraph(reflecting: root)
    return (graph, WeakProbe(root))
  }
}

@Suite("No value shape is dropped in silence")
struct ValueShapeCoverageTests {
  // Needs the binary readers: what it checks is found through symbols (hidden field types, key
  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// Fails if the walk drops any value shape without a note: each holder's object is reached, or a
    /// note says what could not be read. The shapes known to need a note are listed, so that a
    /// shape that starts (or stops) being read shows up here.
    @Test func everyShapeIsReachedOrNoted() {
      let noted: Set<String> = ["ManagedBuffer elements"]
      for holder in ShapeHolders.all {
        let graph = ObjectGraph(reflecting: holder.make())
        let reached = holder.reached(graph)
        #expect(reached || !graph.walkNotes.isEmpty, "\(holder.name): dropped in silence\n\(graph.edges)")
        if noted.contains(holder.name) {
          #expect(
            !reached && !graph.walkNotes.isEmpty, "\(holder.name): expected a note, got \(graph.walkNotes)")
        } else {
          #expect(
            reached && graph.walkNotes.isEmpty, "\(holder.name): not reached; notes: \(graph.walkNotes)")
        }
      }
    }
  #endif
}

@Suite("Foundation's NotificationCenter")
struct NotificationCenterTests {
  // Needs the binary readers: what it checks is found through symbols (hidden field types, key
  // path arguments, blocks, globals); without them it is noted unread.
  #if BinaryReaders
    /// An observer whose block captures it, registered with `addObserver(forName:object:queue:using:)`
    /// and never removed: the center's registrar (a `Mutex` of private Foundation types) is read, the
    /// path runs from the center to the observer, and the runtime agrees (the observer outlives its
    /// last reference exactly while it is registered).
    @Test func walksToTheBlocksObserversRegistered() throws {
      let (probe, token) = registerObserver()
      #expect(probe.object != nil, "the runtime says the observer was freed")
      try walkFromTheCenter(to: probe)
      NotificationCenter.default.removeObserver(token)
      #expect(probe.object == nil, "removing the observer did not free it")
    }
  #endif

  @inline(never)
  private func walkFromTheCenter(to probe: WeakProbe) throws {
    let (graph, objects) = ObjectGraph.walk(NotificationCenter.default, options: GraphOptions())
    #expect(graph.walkNotes == [], "\(graph.walkNotes)")
    let node = try #require(objects.firstIndex { $0 === probe.object })
    let path = try #require(graph.path(to: node))
    #expect(path.allSatisfy { $0.ownership == .strong })
    assertGolden(graph.traceLines(along: path).joined(separator: "\n"), named: "center-to-observer")
  }

  @inline(never)
  private func registerObserver() -> (WeakProbe, any NSObjectProtocol) {
    let observer = CenterObserver()
    let token = NotificationCenter.default.addObserver(
      forName: Notification.Name("NotificationCenterTests.ping"), object: nil, queue: nil
    ) { [observer] _ in observer.count += 1 }
    return (WeakProbe(observer), token)
  }
}

/// Counts the notifications it is sent.
final class CenterObserver: @unchecked Sendable {
  var count = 0
}
