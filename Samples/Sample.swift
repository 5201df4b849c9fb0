/// A fixture scenario: a small object graph with (or without) a known leak.
public struct Sample: Sendable {
  /// The name used on the command line (`retain-graph sample viper-module`).
  public let name: String
  /// One line saying what the sample shows.
  public let summary: String
  /// Whether the sample's graph has a strong retain cycle.
  public let hasCycle: Bool
  private let build: @Sendable () -> SampleInstance

  init(name: String, summary: String, hasCycle: Bool, build: @escaping @Sendable () -> SampleInstance) {
    self.name = name
    self.summary = summary
    self.hasCycle = hasCycle
    self.build = build
  }

  /// Builds a fresh instance of the scenario.
  public func make() -> SampleInstance { build() }

  /// Every sample, in the order `retain-graph samples` lists them.
  public static let all: [Sample] = [
    retainCycle, delegate, viperModule, viperModuleFixed, greeter, danglingUnowned,
    lazyClosure, lazyClosureFixed, methodReference, methodReferenceFixed, observerToken,
    coordinatorParent, coordinatorParentFixed, strongDelegate, strongDelegateFixed, storeSubscription,
    storeSubscriptionFixed, networkCompletion, networkCompletionFixed, finishedCoordinators,
    genericFeedMethod,
    routeHandler, observationTracking, notesCache, toolHost,
  ]

  /// The sample with that name, if there is one.
  public static func named(_ name: String) -> Sample? {
    all.first { $0.name == name }
  }
}

/// A built sample: its root, and a way to break its cycles so that a test does not leak.
///
/// Only ``root`` is held strongly: the other objects and ``breakCycles()`` hold nothing alive, so
/// a leak check sees the scenario exactly as built.
public struct SampleInstance {
  /// The root object of the scenario.
  public let root: AnyObject
  private let weakObjects: [WeakObject]
  private let breakCyclesAction: () -> Void

  /// Every object of the scenario that is still alive, in building order.
  public var objects: [AnyObject] { weakObjects.compactMap(\.object) }

  /// `breakCycles` must capture weakly.
  init(root: AnyObject, objects: [AnyObject], breakCycles: @escaping () -> Void = {}) {
    self.root = root
    self.weakObjects = objects.map(WeakObject.init)
    self.breakCyclesAction = breakCycles
  }

  /// Breaks the sample's retain cycles (if any), so that everything is freed once released.
  public func breakCycles() { breakCyclesAction() }

  /// ``breakCycles()`` as a closure that holds nothing strongly: keep it to break the cycles later
  /// without keeping the sample alive.
  public var cycleBreaker: () -> Void { breakCyclesAction }
}

private final class WeakObject {
  weak var object: AnyObject?
  init(_ object: AnyObject) { self.object = object }
}
