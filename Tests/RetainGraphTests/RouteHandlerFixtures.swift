import RouterTwin

// The shapes of a chat service's route handlers (issue 29.4): closures of yours passed through a
// library's wrapper closure, each capturing the app state, and their fixed twins.

/// An app state that registers six route handlers on the router it holds.
final class ChatAppState: @unchecked Sendable {
  let router = RouterTwin.Router()
  var messages: [String] = []

  func reply(_ request: Request) -> String { "\(messages.count) \(request.path)" }

  /// Six handlers, each a closure of its own capturing `self` strongly: six edits.
  func buildRouter() {
    router.get("/messages") { request in self.reply(request) }
    router.get("/rooms") { request in self.reply(request) }
    router.get("/users") { request in self.reply(request) }
    router.get("/health") { request in self.reply(request) }
    router.get("/send") { request in self.reply(request) }
    router.get("/leave") { request in self.reply(request) }
  }

  /// The fixed twin: every handler captures `[weak self]`.
  func buildRouterWeakly() {
    router.get("/messages") { [weak self] request in self?.reply(request) ?? "" }
    router.get("/rooms") { [weak self] request in self?.reply(request) ?? "" }
    router.get("/users") { [weak self] request in self?.reply(request) ?? "" }
    router.get("/health") { [weak self] request in self?.reply(request) ?? "" }
    router.get("/send") { [weak self] request in self?.reply(request) ?? "" }
    router.get("/leave") { [weak self] request in self?.reply(request) ?? "" }
  }
}

/// A route installed by a free function whose closure captures the state by a local name of its
/// own (`state`): not `self`, so the advice cannot say `[weak self]`.
func installStatusRoute(_ app: ChatAppState) {
  let state = app
  state.router.get("/status") { _ in "\(state.messages.count)" }
}

/// The fixed twin of ``installStatusRoute(_:)``.
func installStatusRouteWeakly(_ app: ChatAppState) {
  let state = app
  state.router.get("/status") { [weak state] _ in "\(state?.messages.count ?? 0)" }
}

/// A room with a router of its own.
final class ChatRoom: @unchecked Sendable {
  let router = RouterTwin.Router()
  let name: String

  init(name: String) { self.name = name }
}

/// Opens rooms: its closure captures the room, another object than `self`.
final class Lobby: @unchecked Sendable {
  var opened = 0

  func open(_ room: ChatRoom) {
    opened += 1
    room.router.get("/name") { _ in room.name }
  }

  func openWeakly(_ room: ChatRoom) {
    opened += 1
    room.router.get("/name") { [weak room] _ in room?.name ?? "" }
  }
}

/// The MCP SDK's shape: `tools/list`.
enum ListTools: RouterTwin.Method {
  typealias Parameters = Int
  typealias Result = [String]
  static let name = "tools/list"
}

/// The MCP SDK's shape: `tools/call`.
enum CallTool: RouterTwin.Method {
  typealias Parameters = String
  typealias Result = String
  static let name = "tools/call"
}

/// A tool host that registers two method handlers on the server it holds, inside a closure.
final class ChatToolHost: @unchecked Sendable {
  let server = Server()
  var tools = ["echo"]

  /// Two handlers, closures inside the `configure` closure, each capturing `self` strongly.
  func registerStrongly() {
    server.configure { server in
      server.withMethodHandler(ListTools.self) { _ in self.tools }
      server.withMethodHandler(CallTool.self) { name in self.tools.contains(name) ? name : "" }
    }
  }

  /// The fixed twin.
  func registerWeakly() {
    server.configure { server in
      server.withMethodHandler(ListTools.self) { [weak self] _ in self?.tools ?? [] }
      server.withMethodHandler(CallTool.self) { [weak self] name in
        self?.tools.contains(name) == true ? name : ""
      }
    }
  }
}
