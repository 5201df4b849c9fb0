// A self-contained twin of the shapes the MCP Swift SDK's `Server` gives a retain graph: each
// method handler you register is wrapped in the library's closure (`withMethodHandler`) and kept in
// a box, by the method's name (in an array of pairs rather than the SDK's dictionary, so that the
// graph's order, and so its golden texts, do not depend on hashing).

/// A method of the protocol: its name, parameters and result.
public protocol Method {
  associatedtype Parameters: Sendable
  associatedtype Result: Sendable
  /// The method's name on the wire.
  static var name: String { get }
}

/// A type-erased handler, as the SDK's `RequestHandlerBox`.
class RequestHandlerBox: @unchecked Sendable {
  /// Answers a request whose parameters are `parameters`.
  func handle(_ parameters: any Sendable) async throws -> any Sendable { parameters }
}

/// The handler of one method, as the SDK's `TypedRequestHandler`.
final class TypedRequestHandler<M: Method>: RequestHandlerBox, @unchecked Sendable {
  private let handler: @Sendable (M.Parameters) async throws -> M.Result

  init(_ handler: @escaping @Sendable (M.Parameters) async throws -> M.Result) {
    self.handler = handler
  }

  override func handle(_ parameters: any Sendable) async throws -> any Sendable {
    guard let parameters = parameters as? M.Parameters else { return parameters }
    return try await handler(parameters)
  }
}

/// The server: its method handlers by name.
public final class Server: @unchecked Sendable {
  private var methodHandlers: [(name: String, handler: RequestHandlerBox)] = []

  public init() {}

  /// How many handlers are registered.
  public var handlerCount: Int { methodHandlers.count }

  /// The handler of the method named `name`.
  func handler(named name: String) -> RequestHandlerBox? { methodHandlers.first { $0.name == name }?.handler }

  /// Registers `handler` for the method `type`, wrapped in a closure of the library's.
  @discardableResult
  public func withMethodHandler<M: Method>(
    _ type: M.Type, handler: @escaping @Sendable (M.Parameters) async throws -> M.Result
  ) -> Self {
    let box = TypedRequestHandler<M> { parameters in
      let result = try await handler(parameters)
      return result
    }
    methodHandlers.removeAll { $0.name == M.name }
    methodHandlers.append((M.name, box))
    return self
  }

  /// Calls `body` with the server, to register handlers.
  public func configure(_ body: (Server) -> Void) { body(self) }

  /// Removes every handler.
  public func removeAllHandlers() { methodHandlers = [] }
}
