import RetainGraph
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

/// A websocket session as a Vapor service writes it (issue 40.4): the channel owns the socket while
/// it is open, the session holds the socket, the socket's callback uses the session.
final class CensusFeedSocket: @unchecked Sendable {
  var onText: ((String) -> Void)?
}

final class CensusFeedSession: @unchecked Sendable {
  let socket: CensusFeedSocket
  var received = 0
  init(socket: CensusFeedSocket) { self.socket = socket }
  func start() { socket.onText = { _ in self.received += 1 } }
}

extension CensusTests {
  /// The census reports the closed session with both edits, in its trace and in its fixes (what the
  /// summary at exit prints), and the runtime keeps it (weak probe).
  @Suite(.heapCensus) struct SessionShape {
    final class Probe: @unchecked Sendable {
      weak var object: AnyObject?
      init(_ object: AnyObject) { self.object = object }
    }

    /// A session started on a socket that its channel then closes (drops).
    @inline(never)
    static func openAndClose() -> Probe {
      // The channel's socket, dropped when this returns (the channel closed).
      let session = CensusFeedSession(socket: CensusFeedSocket())
      session.start()
      return Probe(session)
    }

    @Test func aClosedSessionGetsBothEdits() throws {
      let mark = HeapCensus.mark()
      let probe = Self.openAndClose()
      defer { (probe.object as? CensusFeedSession)?.socket.onText = nil }
      #expect(probe.object != nil, "the runtime freed the session: no leak to report")
      let report = try HeapCensus.leaks(since: mark)
      let leak = try #require(report.leaks(involving: "CensusFeedSession").first, "\(report)")
      #expect(
        leak.fixes == [
          "capture `[weak self]` in closure #1 in CensusFeedSession.start() (stored in CensusFeedSocket.onText); "
            + "or make CensusFeedSession.socket weak"
        ], "\(leak.fixes)")
      let fix = try #require(leak.sections.first?.fixes.first)
      #expect(fix.idiom == .closureCapture)
      #expect(fix.reference?.holder == "CensusFeedSocket" && fix.reference?.kind == .singleCapture)
      #expect(fix.alternative?.reference.holder == "CensusFeedSession")
      #expect(fix.alternative?.reference.label == "socket")
      #expect(fix.alternative?.breakFrees == "CensusFeedSession")
      #expect(fix.alternative != nil && fix.alternative?.decision == nil)
      #expect(
        leak.trace.contains(
          "  or make CensusFeedSession.socket weak, if the closure is the CensusFeedSession's only owner while in "
            + "use (then the first edit frees it early) and something else owns the CensusFeedSocket"),
        "\(leak.trace)")
    }

    /// A session whose socket is still open: its channel owns the socket, and nothing but the
    /// socket's callback owns the session.
    @inline(never)
    static func openSession(on channel: CensusFeedChannel) -> Probe {
      let session = CensusFeedSession(socket: channel.socket)
      session.start()
      return Probe(session)
    }

    /// With a live session owned only by its callback, the census leads with the other edit (weak
    /// `socket`), since `[weak self]` would free the live one.
    @Test func aLiveSessionOwnedOnlyByItsCallbackChoosesTheOtherEdit() throws {
      let mark = HeapCensus.mark()
      let channel = CensusFeedChannel()
      let live = Self.openSession(on: channel)
      let closed = Self.openAndClose()
      defer {
        (closed.object as? CensusFeedSession)?.socket.onText = nil
        channel.socket.onText = nil
      }
      #expect(live.object != nil && closed.object != nil)
      let report = try HeapCensus.leaks(since: mark)
      let leak = try #require(report.leaks(involving: "CensusFeedSession").first, "\(report)")
      #expect(
        leak.fixes == [
          "make CensusFeedSession.socket weak (1 of 1 live CensusFeedSession owned only by closures: the "
            + "closure's weak capture would free them while in use)"
        ], "\(leak.fixes)")
      #expect(
        leak.sections.first?.fixes.first?.alternative?.decision
          == .secondEdit(live: 1, ownedOnlyByClosures: 1))
      #expect(
        leak.trace.contains(
          "  the census sees 1 of 1 live CensusFeedSession owned only by closures: make the second edit"),
        "\(leak.trace)")
    }

    /// With every live session owned by something else (the service's list), the closure's
    /// `[weak self]` is the fix, alone.
    @Test func liveSessionsWithAnotherOwnerKeepTheFirstEdit() throws {
      let mark = HeapCensus.mark()
      let channel = CensusFeedChannel()
      let service = CensusFeedService()
      service.sessions.append(CensusFeedSession(socket: channel.socket))
      service.sessions[0].start()
      let closed = Self.openAndClose()
      defer {
        (closed.object as? CensusFeedSession)?.socket.onText = nil
        channel.socket.onText = nil
      }
      let report = try HeapCensus.leaks(since: mark)
      let leak = try #require(report.leaks(involving: "CensusFeedSession").first, "\(report)")
      #expect(
        leak.fixes == [
          "capture `[weak self]` in closure #1 in CensusFeedSession.start() (stored in CensusFeedSocket.onText)"
        ], "\(leak.fixes)")
      #expect(leak.sections.first?.fixes.first?.alternative?.decision == .firstEdit(live: 1))
      #expect(
        leak.trace.contains("the census sees 1 live CensusFeedSession, each with another owner"),
        "\(leak.trace)")
      withExtendedLifetime(service) {}
    }
  }
}

/// A channel that owns its socket while open.
final class CensusFeedChannel: @unchecked Sendable {
  let socket = CensusFeedSocket()
}

/// A service that keeps its sessions in a list.
final class CensusFeedService: @unchecked Sendable {
  var sessions: [CensusFeedSession] = []
}
