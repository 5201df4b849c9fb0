import RetainGraphTestSupport
import Testing

@testable import RetainGraph

// A service's websocket feed, as a Vapor service writes it: the channel owns the socket while it is
// open; the session holds the socket and gives it a callback that uses the session. Nothing else
// owns the session: while the socket is open, the callback is its only owner. `[weak self]` in the
// callback frees the live session at once (the feed stops); `weak socket` keeps it while the
// channel is open and frees both when it closes.

/// The socket: a callback for each text, owned by its channel while open.
final class FeedSocket {
  var onText: ((String) -> Void)?
  func receive(_ text: String) { onText?(text) }
}

/// The channel: owns its socket while open.
final class FeedChannel {
  private(set) var socket: FeedSocket? = FeedSocket()
  func close() { socket = nil }
}

/// The leaking session: its socket strong, the callback capturing it strongly.
final class FeedSession {
  let socket: FeedSocket
  var received: [String] = []
  init(socket: FeedSocket) { self.socket = socket }
  func start() { socket.onText = { text in self.received.append(text) } }
}

/// The report's first edit applied: `[weak self]` in the callback.
final class WeakCallbackFeedSession {
  let socket: FeedSocket
  var received: [String] = []
  init(socket: FeedSocket) { self.socket = socket }
  func start() { socket.onText = { [weak self] text in self?.received.append(text) } }
}

/// The report's other edit applied: the session's socket weak.
final class WeakSocketFeedSession {
  weak var socket: FeedSocket?
  var received: [String] = []
  init(socket: FeedSocket) { self.socket = socket }
  func start() { socket?.onText = { text in self.received.append(text) } }
}

@Suite("A session and its socket: both edits, and the one that keeps the feed working")
struct SocketSessionTests {
  /// A route handler: makes the session, starts it, and keeps nothing (as Vapor's `webSocket`
  /// closure does). Returns a probe on the session.
  @inline(never)
  private static func accept<Session: AnyObject>(
    _ channel: FeedChannel, _ make: (FeedSocket) -> Session, start: (Session) -> Void
  ) throws -> WeakProbe {
    let session = make(try #require(channel.socket))
    start(session)
    return WeakProbe(session)
  }

  /// The cycle's plan gives both edits, the session's `socket` with when to choose it; the runtime
  /// keeps the session after the channel closes (weak probe).
  @Test func theCycleGivesBothEdits() throws {
    let channel = FeedChannel()
    let probe = try Self.accept(channel, FeedSession.init(socket:)) { $0.start() }
    let graph = try Self.walk(probe)
    let cycle = try #require(graph.cycles.first, "\(graph.report())")
    let fix = try #require(cycle.fixPlan.first)
    #expect(fix.idiom == .closureCapture, "\(graph.report())")
    let alternative = try #require(fix.alternative, "\(graph.report())")
    #expect(alternative.advice == .weakProperty("FeedSession.socket"))
    #expect(alternative.edge.label == "socket")
    #expect(graph.nodes[alternative.edge.from].typeName.hasSuffix("FeedSession"))
    #expect(graph.nodes[alternative.edge.to].typeName.hasSuffix("FeedSocket"))
    #expect(alternative.breakFrees == "FeedSession" && alternative.frees == "FeedSocket")
    #if BinaryReaders
      assertGolden(graph.report(), named: "feed-session.report")
    #endif
    channel.close()
    #expect(probe.object != nil, "the runtime frees the cycle: there is no leak to report")
    (probe.object as? FeedSession)?.socket.onText = nil
    #expect(probe.object == nil)
  }

  @inline(never)
  private static func walk(_ probe: WeakProbe) throws -> ObjectGraph {
    let session = try #require(probe.object as? FeedSession, "nothing but the callback owns it")
    return ObjectGraph(reflecting: session)
  }

  /// The first edit, applied: the session is freed while its socket is open and the feed stops.
  @Test func weakSelfFreesTheSessionWhileTheSocketIsOpen() throws {
    let channel = FeedChannel()
    let probe = try Self.accept(channel, WeakCallbackFeedSession.init(socket:)) { $0.start() }
    channel.socket?.receive("tick")
    #expect(probe.object == nil, "the callback was the session's only owner")
    #expect(channel.socket?.onText != nil, "the socket is open and keeps calling back into nothing")
  }

  /// The other edit, applied: the session lives while the channel is open and receives every text,
  /// the walk finds no cycle, and closing the channel frees the socket and the session.
  @Test func weakSocketKeepsTheSessionWhileTheSocketIsOpen() throws {
    let channel = FeedChannel()
    let probe = try Self.accept(channel, WeakSocketFeedSession.init(socket:)) { $0.start() }
    channel.socket?.receive("tick")
    channel.socket?.receive("tock")
    try Self.checkOpen(probe)
    let socketProbe = WeakProbe(channel.socket)
    channel.close()
    #expect(socketProbe.object == nil && probe.object == nil, "closing the channel frees both")
  }

  @inline(never)
  private static func checkOpen(_ probe: WeakProbe) throws {
    let session = try #require(probe.object as? WeakSocketFeedSession, "freed while the socket is open")
    #expect(session.received == ["tick", "tock"])
    #expect(ObjectGraph(reflecting: session).cycles.isEmpty)
  }

  /// No alternative where weakening the object's property frees what ends the work: an
  /// `AnyCancellable`-like token that cancels when freed.
  @Test func aCancellationTokenIsNotTheOtherEdit() throws {
    let owner = TokenOwner()
    owner.subscribe()
    let graph = ObjectGraph(reflecting: owner)
    let fix = try #require(graph.cycles.first?.fixPlan.first, "\(graph.report())")
    #expect(fix.idiom == .closureCapture)
    #expect(fix.alternative == nil, "\(graph.report())")
    owner.token?.handler = nil
  }
}

/// Holds a token that keeps its handler, the handler capturing the owner.
final class TokenOwner {
  var token: SubscriptionToken?
  func subscribe() { token = SubscriptionToken { self.count += 1 } }
  var count = 0
}

/// Cancels (drops its handler) when freed, as `AnyCancellable` does.
final class SubscriptionToken {
  var handler: (() -> Void)?
  init(_ handler: @escaping () -> Void) { self.handler = handler }
}
