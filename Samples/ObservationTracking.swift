public import Observation

/// A model observed with the Observation framework.
@Observable public final class TrackedCounter {
  public var value = 0
  public init() {}
}

/// Owns a model and re-reads it on every change with `withObservationTracking`, its `onChange`
/// closure capturing `self` strongly: Observation keeps the closure until the next change.
public final class CounterScreen: @unchecked Sendable {
  public let counter = TrackedCounter()
  public var renders = 0
  public init() { render() }

  func render() {
    renders += 1
    withObservationTracking({ _ = counter.value }, onChange: { self.renders += 1 })
  }
}

extension Sample {
  static let observationTracking = Sample(
    name: "observation-tracking",
    summary: "withObservationTracking's onChange closure, kept by Observation, captures the screen "
      + "that owns the observed model",
    hasCycle: true
  ) {
    let screen = CounterScreen()
    return SampleInstance(root: screen, objects: [screen, screen.counter]) { [weak screen] in
      // A change runs onChange once, which ends the tracking and lets the closure go.
      screen?.counter.value += 1
    }
  }
}
