/// What a ``PaymentViewController`` reports to.
public protocol PaymentViewControllerDelegate: AnyObject {
  func paymentDidFinish()
}

/// Owns its view controller and is its delegate.
public final class PaymentCoordinator: PaymentViewControllerDelegate {
  public var viewController: PaymentViewController?
  public init() {}
  public func start() {
    let controller = PaymentViewController()
    controller.delegate = self
    viewController = controller
  }
  public func paymentDidFinish() {}
}

/// Holds its delegate strongly: a cycle with the coordinator that owns it.
public final class PaymentViewController {
  public var delegate: (any PaymentViewControllerDelegate)?
  public init() {}
}

/// Owns its view controller and is its delegate; the view controller holds it weakly.
public final class FixedPaymentCoordinator: PaymentViewControllerDelegate {
  public var viewController: FixedPaymentViewController?
  public init() {}
  public func start() {
    let controller = FixedPaymentViewController()
    controller.delegate = self
    viewController = controller
  }
  public func paymentDidFinish() {}
}

/// Holds its delegate weakly.
public final class FixedPaymentViewController {
  public weak var delegate: (any PaymentViewControllerDelegate)?
  public init() {}
}

extension Sample {
  static let strongDelegate = Sample(
    name: "strong-delegate",
    summary: "a view controller holds its coordinator strongly as its delegate: a cycle of two",
    hasCycle: true
  ) {
    let coordinator = PaymentCoordinator()
    coordinator.start()
    let controller = coordinator.viewController
    return SampleInstance(root: coordinator, objects: [coordinator] + (controller.map { [$0] } ?? [])) {
      [weak controller] in controller?.delegate = nil
    }
  }

  static let strongDelegateFixed = Sample(
    name: "strong-delegate-fixed", summary: "the same view controller with a weak delegate: no cycle",
    hasCycle: false
  ) {
    let coordinator = FixedPaymentCoordinator()
    coordinator.start()
    return SampleInstance(
      root: coordinator, objects: [coordinator] + (coordinator.viewController.map { [$0] } ?? []))
  }
}
