import Foundation
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
  /// The walk finds the cycle the runtime confirms: the root survives its release exactly when
  /// `predictedLeaks()` says so, and nothing is noted as unreadable.
  @Test(arguments: ShapeScenario.all)
  func cycleIsFoundAndConfirmedByTheRuntime(_ scenario: ShapeScenario) {
    let (graph, probe) = walkAndRelease(scenario)
    #expect(graph.notes == [], "\(graph.report())")
    #expect(graph.predictedLeaks().contains(graph.root), "\(graph.report())")
    #expect(probe.object != nil, "the runtime says the root was freed")
  }

  @inline(never)
  private func walkAndRelease(_ scenario: ShapeScenario) -> (ObjectGraph, WeakProbe) {
    let root = scenario.make()
    let graph = ObjectGraph(reflecting: root)
    return (graph, WeakProbe(root))
  }
}

@Suite("No value shape is dropped in silence")
struct ValueShapeCoverageTests {
  /// Fails if the walk drops any value shape without a note: each holder's object is reached, or a
  /// note says what could not be read. The shapes known to need a note are listed, so that a
  /// shape that starts (or stops) being read shows up here.
  @Test func everyShapeIsReachedOrNoted() {
    let noted: Set<String> = ["ManagedBuffer elements"]
    for holder in ShapeHolders.all {
      let graph = ObjectGraph(reflecting: holder.make())
      let reached = holder.reached(graph)
      #expect(reached || !graph.notes.isEmpty, "\(holder.name): dropped in silence\n\(graph.edges)")
      if noted.contains(holder.name) {
        #expect(!reached && !graph.notes.isEmpty, "\(holder.name): expected a note, got \(graph.notes)")
      } else {
        #expect(reached && graph.notes.isEmpty, "\(holder.name): not reached; notes: \(graph.notes)")
      }
    }
  }
}

@Suite("Foundation's NotificationCenter")
struct NotificationCenterTests {
  /// Its observers live in a `Mutex` of private Foundation types, which the runtime will not name:
  /// the walk cannot read them and says so in a note naming the field and the type, instead of
  /// showing one node in silence.
  @Test func theRegistrarItCannotReadIsNoted() {
    let graph = ObjectGraph(reflecting: NotificationCenter.default)
    #expect(
      graph.notes.contains {
        $0.hasPrefix(
          "FoundationEssentials.NotificationCenter.registrar: a value of type Synchronization.Mutex<")
      }, "\(graph.notes)")
  }
}
