/// Keeps the completion handlers of the requests in flight.
public final class NetworkService {
  public private(set) var pending: [([Int]) -> Void] = []
  public init() {}

  /// Starts a request; `completion` is kept until the request finishes.
  public func request(_ path: String, completion: @escaping ([Int]) -> Void) {
    pending.append(completion)
  }

  /// Drops every completion, as a finished or cancelled request does.
  public func cancelAll() { pending.removeAll() }
}

/// Owns its network service and passes its own method as a request's completion: the stored
/// method reference retains `self`.
public final class PriceList {
  public let network = NetworkService()
  public private(set) var prices: [Int] = []
  public init() {}
  public func refresh() {
    network.request("/status") { _ in }
    network.request("/prices", completion: handlePrices)
  }
  public func handlePrices(_ prices: [Int]) { self.prices = prices }
}

/// The same, passing `{ [weak self] in self?.handlePrices($0) }`.
public final class FixedPriceList {
  public let network = NetworkService()
  public private(set) var prices: [Int] = []
  public init() {}
  public func refresh() {
    network.request("/status") { _ in }
    network.request("/prices") { [weak self] in self?.handlePrices($0) }
  }
  public func handlePrices(_ prices: [Int]) { self.prices = prices }
}

extension Sample {
  static let networkCompletion = Sample(
    name: "network-completion",
    summary: "a method reference stored as a network completion retains its object: a cycle",
    hasCycle: true
  ) {
    let list = PriceList()
    list.refresh()
    return SampleInstance(root: list, objects: [list, list.network]) { [weak list] in
      list?.network.cancelAll()
    }
  }

  static let networkCompletionFixed = Sample(
    name: "network-completion-fixed", summary: "the same completion as { [weak self] in … }: no cycle",
    hasCycle: false
  ) {
    let list = FixedPriceList()
    list.refresh()
    return SampleInstance(root: list, objects: [list, list.network])
  }
}
