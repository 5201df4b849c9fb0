/// Keeps observer blocks in an array.
public final class Notifier {
  public var observers: [() -> Void] = []
  public init() {}
  public func observe(_ block: @escaping () -> Void) { observers.append(block) }
}

/// Owns a notifier and registers an observer that captures `self` strongly.
public final class Screen {
  public let notifier = Notifier()
  public var refreshCount = 0
  public init() {
    notifier.observe { self.refreshCount += 1 }
  }
}

extension Sample {
  static let observerToken = Sample(
    name: "observer-token",
    summary: "an observer block in its notifier's array captures the screen that owns the notifier",
    hasCycle: true
  ) {
    let screen = Screen()
    return SampleInstance(root: screen, objects: [screen, screen.notifier]) { [weak screen] in
      screen?.notifier.observers.removeAll()
    }
  }
}
