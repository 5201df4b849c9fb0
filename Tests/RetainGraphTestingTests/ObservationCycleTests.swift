import Observation
import RetainGraph
import RetainGraphTesting
import Samples
import Testing

/// A model observed with `withObservationTracking`.
@Observable final class ObservedCount {
  var value = 0
}

/// Re-reads its model on change, its `onChange` closure capturing it weakly: correct code.
final class WeaklyObservingScreen: @unchecked Sendable {
  let count = ObservedCount()
  var renders = 0

  init() {
    withObservationTracking({ _ = count.value }, onChange: { [weak self] in self?.renders += 1 })
  }
}

@Suite("assertNoCycles and Observation's own loop")
struct ObservationCycleTests {
  /// Observation keeps a loop of its own while a tracking is installed: not a cycle of yours.
  @Test func aWeakOnChangePasses() {
    let screen = WeaklyObservingScreen()
    assertNoCycles(screen)
    #expect(checkNoCycles(screen) == nil)
    let probe = probeAfterRelease { WeaklyObservingScreen() }
    #expect(probe() == nil, "the runtime kept the screen")
  }

  /// A strong onChange fails, advised as the app's closure, never as Observation's internals.
  @Test func aStrongOnChangeFailsWithTheAppsClosure() throws {
    let instance = try #require(Sample.named("observation-tracking")).make()
    defer { instance.breakCycles() }
    let message = try #require(checkNoCycles(instance.root)).description
    let fixes = message.split(separator: "\n").filter { $0.hasPrefix("fix: ") }
    #expect(
      fixes == [
        "fix: capture `[weak self]` in closure #2 in implicit closure #1 in CounterScreen.render() "
          + "(passed to Observation) — Samples/ObservationTracking.swift:18"
      ], "\(message)")
  }
}

/// Makes an object in a frame of its own and returns a weak probe of it once released.
@inline(never) private func probeAfterRelease(_ make: () -> AnyObject) -> () -> AnyObject? {
  weak let object = make()
  return { object }
}
