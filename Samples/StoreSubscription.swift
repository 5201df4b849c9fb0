/// The app state a ``Store`` publishes.
public struct CartState: Sendable {
  public var itemCount = 0
  public init() {}
}

/// Publishes state changes to the closures subscribed to it.
public final class Store {
  public var state = CartState()
  public private(set) var subscribers: [Int: (CartState) -> Void] = [:]
  private var nextID = 0
  public init() {}

  /// Calls `subscriber` with every new state until it is unsubscribed.
  @discardableResult
  public func subscribe(_ subscriber: @escaping (CartState) -> Void) -> Int {
    defer { nextID += 1 }
    subscribers[nextID] = subscriber
    return nextID
  }

  /// Stops calling every subscriber.
  public func unsubscribeAll() { subscribers.removeAll() }
}

/// Owns the store it subscribes to, with a closure that captures `self` strongly.
public final class CartViewModel {
  public let store: Store
  public private(set) var title = ""
  public init(store: Store) {
    self.store = store
    let prefix = "Cart"
    store.subscribe { state in self.title = "\(prefix) (\(state.itemCount))" }
  }
}

/// The same view model, subscribing with `[weak self]`.
public final class FixedCartViewModel {
  public let store: Store
  public private(set) var title = ""
  public init(store: Store) {
    self.store = store
    let prefix = "Cart"
    store.subscribe { [weak self] state in self?.title = "\(prefix) (\(state.itemCount))" }
  }
}

extension Sample {
  static let storeSubscription = Sample(
    name: "store-subscription",
    summary: "a view model owns a store and subscribes to it with a closure that captures self",
    hasCycle: true
  ) {
    let model = CartViewModel(store: Store())
    return SampleInstance(root: model, objects: [model, model.store]) { [weak model] in
      model?.store.unsubscribeAll()
    }
  }

  static let storeSubscriptionFixed = Sample(
    name: "store-subscription-fixed", summary: "the same subscription capturing [weak self]: no cycle",
    hasCycle: false
  ) {
    let model = FixedCartViewModel(store: Store())
    return SampleInstance(root: model, objects: [model, model.store])
  }
}
