/// Publishes values to subscribers; generic, so each subscriber is wrapped in a closure made
/// inside `subscribe` (a generic specialisation of it in an optimised build).
public final class Feed<Value> {
  public private(set) var subscribers: [(Value) -> Void] = []
  public init() {}

  /// Calls `subscriber` with every new value until the subscribers are removed.
  public func subscribe(_ subscriber: @escaping (Value) -> Void) {
    subscribers.append { value in subscriber(value) }
  }

  /// Stops calling every subscriber.
  public func removeAll() { subscribers.removeAll() }
}

/// Owns a feed and subscribes to it with its own private method: the method reference, wrapped by
/// the feed's closure, retains `self`.
public final class PriceBoard {
  public let feed = Feed<[Int]>()
  public private(set) var total = 0
  public init() { feed.subscribe(handlePrices) }
  private func handlePrices(_ prices: [Int]) { total = prices.reduce(0, +) }
}

/// A route table generic over a parameter pack, as FlyingFox stores a `:id` route's handler: the stored
/// closure is made inside `append` with the handler and the pack's values.
public final class RouteTable {
  public private(set) var handlers: [(String) -> Void] = []
  public init() {}

  /// Adds a route whose handler is called with the path and `values`.
  public func append<each Value>(
    _ handler: @escaping (String, repeat each Value) -> Void, _ values: repeat each Value
  ) {
    handlers.append { path in handler(path, repeat each values) }
  }

  /// Removes every route.
  public func removeAll() { handlers.removeAll() }
}

/// Owns a route table whose route handler captures `self` strongly.
public final class RouteController {
  public let router = RouteTable()
  public private(set) var hits = 0
  public init() {
    router.append({ (_: String, weight: Int) in self.hits += weight }, 1)
  }
}

extension Sample {
  static let genericFeedMethod = Sample(
    name: "generic-feed-method",
    summary: "a private method passed to a generic feed it owns: a cycle through the feed's closure",
    hasCycle: true
  ) {
    let board = PriceBoard()
    return SampleInstance(root: board, objects: [board, board.feed]) { [weak board] in board?.feed.removeAll()
    }
  }

  static let routeHandler = Sample(
    name: "route-handler",
    summary: "a route handler capturing self, stored by a route table generic over a parameter pack: a cycle",
    hasCycle: true
  ) {
    let controller = RouteController()
    return SampleInstance(root: controller, objects: [controller, controller.router]) { [weak controller] in
      controller?.router.removeAll()
    }
  }
}
