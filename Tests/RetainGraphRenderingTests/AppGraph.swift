import Foundation

// A generated app-shaped graph of about 40 nodes: an app coordinator, a child coordinator per feature,
// each with a view model, a view controller, services, and closures with long names (some capturing
// their owner strongly, which makes retain cycles).

final class ApplicationCoordinator {
  var childCoordinators: [FeatureCoordinator] = []
  let dependencies = DependencyContainerForApplicationScene()
  var onDidFinishOnboardingAndRequestMainInterface: (() -> Void)?
}

final class DependencyContainerForApplicationScene {
  let analytics = AnalyticsEventTrackingService()
  let network = AuthenticatedNetworkSessionWithRetryPolicy()
}

final class AnalyticsEventTrackingService {}
final class AuthenticatedNetworkSessionWithRetryPolicy {
  var pendingRequests: [String: () -> Void] = [:]
}

final class FeatureCoordinator {
  let feature: String
  var viewModel: FeatureScreenViewModelWithObservableState?
  var viewController: FeatureScreenHostingViewController?
  weak var parent: ApplicationCoordinator?
  var onFeatureFlowDidFinishWithResult: ((String) -> Void)?

  init(feature: String) { self.feature = feature }

  func startFeatureFlow(
    presentingFrom parent: ApplicationCoordinator, animated: Bool, userInfo: [String: String]
  ) {
    self.parent = parent
    let viewModel = FeatureScreenViewModelWithObservableState(network: parent.dependencies.network)
    let viewController = FeatureScreenHostingViewController(viewModel: viewModel)
    self.viewModel = viewModel
    self.viewController = viewController
    let feature = feature
    // Captures self strongly together with a string: a closure context in a retain cycle.
    onFeatureFlowDidFinishWithResult = { result in
      _ = (self.feature, feature, result, animated, userInfo.count)
    }
    viewModel.onSelectionDidChangeNotifyCoordinatorAndReloadDependentSections = { [weak self] index in
      _ = (self?.feature, feature, index)
    }
  }
}

final class FeatureScreenViewModelWithObservableState {
  let network: AuthenticatedNetworkSessionWithRetryPolicy
  let formatter = LocalizedMeasurementAndCurrencyFormatter()
  var onSelectionDidChangeNotifyCoordinatorAndReloadDependentSections: ((Int) -> Void)?
  init(network: AuthenticatedNetworkSessionWithRetryPolicy) { self.network = network }
}

final class LocalizedMeasurementAndCurrencyFormatter {}

final class FeatureScreenHostingViewController {
  let viewModel: FeatureScreenViewModelWithObservableState
  var sections: [CollectionViewSectionControllerForFeatureContent] = []
  init(viewModel: FeatureScreenViewModelWithObservableState) {
    self.viewModel = viewModel
    sections = (0..<2).map { _ in CollectionViewSectionControllerForFeatureContent() }
  }
}

final class CollectionViewSectionControllerForFeatureContent {}

/// The app: five features started from the application coordinator.
func makeAppGraph() -> ApplicationCoordinator {
  let app = ApplicationCoordinator()
  for feature in ["home", "search", "profile", "settings", "checkout"] {
    let coordinator = FeatureCoordinator(feature: feature)
    coordinator.startFeatureFlow(presentingFrom: app, animated: true, userInfo: ["feature": feature])
    app.childCoordinators.append(coordinator)
  }
  let network = app.dependencies.network
  network.pendingRequests["refreshAuthenticationTokenBeforeRetryingRequest"] = { [app] in _ = (app, 1) }
  app.onDidFinishOnboardingAndRequestMainInterface = { [weak app] in _ = (app, 2) }
  return app
}
