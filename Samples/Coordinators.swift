/// A coordinator of an app's navigation: it keeps its child coordinators in `children`.
public protocol Coordinator: AnyObject {
  /// The child coordinators this one started and has not removed.
  var children: [any Coordinator] { get set }
}

/// The app's root coordinator: owns its children.
public final class AppCoordinator: Coordinator {
  public var children: [any Coordinator] = []
  public init() {}
}

/// A child coordinator that holds its parent strongly: a cycle through `children`.
public final class CheckoutCoordinator: Coordinator {
  public var parent: (any Coordinator)?
  public var children: [any Coordinator] = []
  public init(parent: any Coordinator) { self.parent = parent }
}

/// Another child coordinator with a strong parent.
public final class ProfileCoordinator: Coordinator {
  public var parent: (any Coordinator)?
  public var children: [any Coordinator] = []
  public init(parent: any Coordinator) { self.parent = parent }
}

/// A child coordinator with a weak parent, as it should be.
public final class FixedChildCoordinator: Coordinator {
  public weak var parent: (any Coordinator)?
  public var children: [any Coordinator] = []
  public init(parent: any Coordinator) { self.parent = parent }
}

extension Sample {
  static let coordinatorParent = Sample(
    name: "coordinator-parent",
    summary: "an app coordinator's children hold their parent strongly: one component, two loops",
    hasCycle: true
  ) {
    let app = AppCoordinator()
    let checkout = CheckoutCoordinator(parent: app)
    let profile = ProfileCoordinator(parent: app)
    app.children = [checkout, profile]
    return SampleInstance(root: app, objects: [app, checkout, profile]) { [weak app] in
      app?.children.removeAll()
    }
  }

  static let coordinatorParentFixed = Sample(
    name: "coordinator-parent-fixed", summary: "the same children with a weak parent: no cycle",
    hasCycle: false
  ) {
    let app = AppCoordinator()
    let first = FixedChildCoordinator(parent: app)
    let second = FixedChildCoordinator(parent: app)
    app.children = [first, second]
    return SampleInstance(root: app, objects: [app, first, second])
  }

  static let finishedCoordinators = Sample(
    name: "finished-coordinators",
    summary: "finished child coordinators are never removed from children: no cycle, but growth",
    hasCycle: false
  ) {
    let app = AppCoordinator()
    for _ in 0..<3 { app.startCheckout() }
    return SampleInstance(root: app, objects: [app] + app.children)
  }
}

extension AppCoordinator {
  /// Starts a checkout flow that finishes at once, and forgets to remove it from ``children``.
  public func startCheckout() {
    let child = FixedChildCoordinator(parent: self)
    children.append(child)
  }
}
