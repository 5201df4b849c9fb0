// A self-contained twin of the shapes a Hummingbird 2 router gives a retain graph, without
// Hummingbird: the tests need its object graph, not HTTP. As in Hummingbird's `RouterMethods`, the
// route methods are a protocol extension's generic functions, and `constructResponder(use:)` wraps
// the handler you pass in a closure of its own (generic over the response), which the router stores
// in a `CallbackResponder`: your closure is reached through the library's closure.

/// A request: only its path.
public struct Request: Sendable {
  public var path: String

  public init(path: String) { self.path = path }
}

/// A response: only its body.
public struct Response: Sendable {
  public var body: String

  public init(body: String) { self.body = body }
}

/// What a handler may return, as Hummingbird's `ResponseGenerator`.
public protocol ResponseGenerator: Sendable {
  /// The response this value stands for.
  func response(from request: Request) throws -> Response
}

extension Response: ResponseGenerator {
  public func response(from request: Request) throws -> Response { self }
}

extension String: ResponseGenerator {
  public func response(from request: Request) throws -> Response { Response(body: self) }
}

/// A responder made from a closure, as Hummingbird's `CallbackResponder`.
public struct CallbackResponder: Sendable {
  let callback: @Sendable (Request) async throws -> Response

  /// Answers `request`.
  public func respond(to request: Request) async throws -> Response { try await callback(request) }
}

/// What can register routes, as Hummingbird's `RouterMethods`.
public protocol RouterMethods: AnyObject {
  /// Stores `responder` for `path`.
  func add(_ path: String, responder: CallbackResponder)
}

extension RouterMethods {
  /// Registers `handler` for GET requests on `path`.
  @discardableResult
  public func get(
    _ path: String, use handler: @escaping @Sendable (Request) async throws -> some ResponseGenerator
  ) -> Self {
    add(path, responder: constructResponder(use: handler))
    return self
  }

  /// The library's wrapper: a closure of its own that calls yours and makes its response.
  func constructResponder(
    use closure: @escaping @Sendable (Request) async throws -> some ResponseGenerator
  ) -> CallbackResponder {
    CallbackResponder { request in
      let output = try await closure(request)
      return try output.response(from: request)
    }
  }
}

/// The router: its routes in the order they were added (an array rather than Hummingbird's trie,
/// so that the graph's order, and so its golden texts, do not depend on hashing).
public final class Router: RouterMethods, @unchecked Sendable {
  /// A path and its responder.
  public struct Route: Sendable {
    public let path: String
    let responder: CallbackResponder
  }

  /// The routes, in the order they were added.
  public private(set) var routes: [Route] = []

  public init() {}

  public func add(_ path: String, responder: CallbackResponder) {
    routes.append(Route(path: path, responder: responder))
  }

  /// Removes every route (ends the routes' references to what their handlers capture).
  public func removeAllRoutes() { routes = [] }

  /// Answers a request to `path`, nil when no route has it.
  public func respond(to path: String) async throws -> Response? {
    try await routes.first { $0.path == path }?.responder.respond(to: Request(path: path))
  }
}
