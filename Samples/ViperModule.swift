/// The view of a VIPER module: owns its presenter.
public final class ViewController {
  public var presenter: Presenter?
  public init() {}
}

/// The presenter: owns the interactor, holds the view weakly.
public final class Presenter {
  public weak var view: ViewController?
  public var interactor: Interactor?
  public init() {}
}

/// The interactor: reports to its output, the presenter.
public final class Interactor {
  public var output: Presenter?
  public init() {}
}

/// The fixed interactor: its output is weak.
public final class FixedInteractor {
  public weak var output: FixedPresenter?
  public init() {}
}

/// The presenter of the fixed module.
public final class FixedPresenter {
  public weak var view: FixedViewController?
  public var interactor: FixedInteractor?
  public init() {}
}

/// The view of the fixed module.
public final class FixedViewController {
  public var presenter: FixedPresenter?
  public init() {}
}

extension Sample {
  static let viperModule = Sample(
    name: "viper-module",
    summary: "view → presenter → interactor, interactor.output strong back to presenter: a cycle of two",
    hasCycle: true
  ) {
    let view = ViewController()
    let presenter = Presenter()
    let interactor = Interactor()
    view.presenter = presenter
    presenter.view = view
    presenter.interactor = interactor
    interactor.output = presenter
    return SampleInstance(root: view, objects: [view, presenter, interactor]) { [weak interactor] in
      interactor?.output = nil
    }
  }

  static let viperModuleFixed = Sample(
    name: "viper-module-fixed", summary: "the same module with a weak interactor.output: no cycle",
    hasCycle: false
  ) {
    let view = FixedViewController()
    let presenter = FixedPresenter()
    let interactor = FixedInteractor()
    view.presenter = presenter
    presenter.view = view
    presenter.interactor = interactor
    interactor.output = presenter
    return SampleInstance(root: view, objects: [view, presenter, interactor])
  }
}
