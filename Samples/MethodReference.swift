/// Calls back when a request completes; stores the callback.
public final class Service {
  public var completion: ((Int) -> Void)?
  public init() {}
  public func load(completion: @escaping (Int) -> Void) { self.completion = completion }
}

/// Passes its own method to the service it owns: the method reference retains `self`.
public final class UseCase {
  public let service = Service()
  public private(set) var lastResponse = 0
  public init() {}
  public func start() { service.load(completion: handleResponse) }
  public func handleResponse(_ value: Int) { lastResponse = value }
}

/// The same, passing `{ [weak self] in … }`: no cycle.
public final class FixedUseCase {
  public let service = Service()
  public private(set) var lastResponse = 0
  public init() {}
  public func start() { service.load { [weak self] value in self?.handleResponse(value) } }
  public func handleResponse(_ value: Int) { lastResponse = value }
}

extension Sample {
  static let methodReference = Sample(
    name: "method-reference",
    summary: "a use case hands its own method to the service it owns: a cycle through the callback",
    hasCycle: true
  ) {
    let useCase = UseCase()
    useCase.start()
    return SampleInstance(root: useCase, objects: [useCase, useCase.service]) { [weak useCase] in
      useCase?.service.completion = nil
    }
  }

  static let methodReferenceFixed = Sample(
    name: "method-reference-fixed", summary: "the same callback as { [weak self] in … }: no cycle",
    hasCycle: false
  ) {
    let useCase = FixedUseCase()
    useCase.start()
    return SampleInstance(root: useCase, objects: [useCase, useCase.service])
  }
}
