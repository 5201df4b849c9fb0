import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

/// A partial answer is never a pass: a walk cut by a limit, or one that could not read a part of an
/// object of yours, fails as incomplete and says how to see the rest.
@Suite("Incomplete walks fail")
struct IncompleteWalkTests {
  /// 150,000 items, the last of which holds its registry strongly: a cycle past the default
  /// `maxNodes` (100,000).
  @Test func aCycleBeyondTheNodeLimitFailsAsIncomplete() throws {
    let registry = LongRegistry(count: 150_000)
    defer { registry.items.last?.owner = nil }
    weak let probe = registry.items.last
    let text = try #require(checkNoCycles(registry)).description
    assertGolden(text, named: "cycle-past-the-cut")
    let seen = SeenIssues()
    withKnownIssue {
      assertNoCycles(registry)
    } matching: {
      seen.see($0)
    }
    assertGolden(seen.text, named: "cycle-past-the-cut-assert")
    // Raised above the graph's size, the walk sees the cycle.
    let graph = ObjectGraph(reflecting: registry, options: GraphOptions(maxNodes: 200_000))
    #expect(graph.isComplete && graph.walkNotes.isEmpty)
    #expect(graph.cycles.count == 1)
    let found = try #require(checkNoCycles(registry, options: GraphOptions(maxNodes: 200_000))).description
    assertGolden(found, named: "cycle-past-the-cut-found")
    #expect(probe != nil)
  }

  /// The same registry without the back reference: the cut still makes the answer incomplete, and a
  /// raised limit passes.
  @Test func aCleanGraphPassesOnlyWhenWalkedWhole() {
    let registry = LongRegistry(count: 150_000)
    registry.items.last?.owner = nil
    #expect(checkNoCycles(registry) != nil)
    #expect(checkNoCycles(registry, options: GraphOptions(maxNodes: 200_000)) == nil)
    let small = LongRegistry(count: 10)
    small.items.last?.owner = nil
    assertNoCycles(small)
    let graph = ObjectGraph(reflecting: small)
    #expect(graph.report() == "" && graph.walkNotes.isEmpty && graph.isComplete)
  }

  /// A cycle through a `ManagedBuffer` subclass's elements, which the walk notes it cannot read:
  /// incomplete; conformed to `GraphReflectable`, the cycle is found.
  @Test func aCycleThroughUnreadBufferElementsFailsAsIncomplete() throws {
    let buffer = PeerSlots.make(peers: 2)
    defer { buffer.clear() }
    weak let probe = buffer
    let graph = ObjectGraph(reflecting: buffer)
    #expect(graph.cycles.isEmpty && !graph.isComplete)
    #expect(graph.walkNotes.map(\.kind) == [.unreadElements])
    #expect(graph.walkNotes.first?.node == 0)
    assertGolden(graph.report(), named: "unread-buffer-report")
    let text = try #require(checkNoCycles(buffer)).description
    assertGolden(text, named: "unread-buffer")

    let described = ReflectedPeerSlots.make(peers: 2)
    defer { described.clear() }
    let found = ObjectGraph(reflecting: described)
    #expect(found.isComplete && found.walkNotes.isEmpty)
    #expect(found.cycles.count == 1)
    assertGolden(try #require(checkNoCycles(described)).description, named: "reflected-buffer")
    #expect(probe != nil)
  }

  /// `assertNoLeaks` over a cut walk fails as incomplete even when every object it probed went:
  /// what lay past the cut was never probed.
  @Test func aLeakCheckOverACutWalkFailsAsIncomplete() throws {
    weak var first: RegistryItem?
    let text = try #require(
      checkNoLeaks(options: GraphOptions(maxNodes: 5)) {
        let registry = LongRegistry(count: 20)
        registry.items.last?.owner = nil
        first = registry.items.first
        return registry
      }
    ).description
    assertGolden(text, named: "leak-check-past-the-cut")
    #expect(first == nil)
    #expect(
      checkNoLeaks {
        let registry = LongRegistry(count: 20)
        registry.items.last?.owner = nil
        return registry
      } == nil)
  }

  /// Survivors whose graph has an unread part of the user's: the failure says what the walk did
  /// not read around them (the cycle through the buffer's elements it could not see).
  @Test func survivorsWithAnUnreadPartSayWhatWasNotRead() throws {
    weak var buffer: PeerSlots?
    let text = try #require(
      checkNoLeaks(timeout: .milliseconds(100)) {
        let made = PeerSlots.make(peers: 2)
        buffer = made
        return SlotsOwner(slots: made)
      }
    ).description
    assertGolden(text, named: "leak-check-unread-buffer")
    #expect(buffer != nil)
    buffer?.clear()
    #expect(buffer == nil)
  }

  /// The runtime agrees: released, the registry with the back reference stays alive, and the one
  /// without goes.
  @Test func theRuntimeAgrees() {
    weak var leaked: LongRegistry?
    weak var freed: LongRegistry?
    do {
      let registry = LongRegistry(count: 1_000)
      leaked = registry
      let clean = LongRegistry(count: 1_000)
      clean.items.last?.owner = nil
      freed = clean
    }
    #expect(leaked != nil && freed == nil)
    leaked?.items.last?.owner = nil
    #expect(leaked == nil)
  }
}

final class SlotsOwner {
  let slots: PeerSlots
  init(slots: PeerSlots) { self.slots = slots }
}

/// A registry of many items, the last of which holds the registry strongly.
final class LongRegistry {
  var items: [RegistryItem] = []
  init(count: Int) {
    items = (0..<count).map { _ in RegistryItem() }
    items.last?.owner = self
  }
}

final class RegistryItem {
  var owner: LongRegistry?
}

/// Peers stored as a `ManagedBuffer`'s elements, each holding the buffer: a cycle through the
/// elements, which the walk cannot read.
class PeerSlots: ManagedBuffer<Int, BufferPeer> {
  static func make(peers: Int) -> Self {
    let buffer = unsafeDowncast(create(minimumCapacity: peers) { _ in peers }, to: Self.self)
    buffer.withUnsafeMutablePointers { count, elements in
      for index in 0..<count.pointee { (elements + index).initialize(to: BufferPeer(slots: buffer)) }
    }
    return buffer
  }

  var peers: [BufferPeer] {
    withUnsafeMutablePointers { count, elements in (0..<count.pointee).map { elements[$0] } }
  }

  /// Breaks the cycles.
  func clear() {
    withUnsafeMutablePointers { count, elements in
      for index in 0..<count.pointee { elements[index].slots = nil }
    }
  }

  deinit {
    _ = withUnsafeMutablePointers { count, elements in elements.deinitialize(count: count.pointee) }
  }
}

final class BufferPeer {
  var slots: PeerSlots?
  init(slots: PeerSlots) { self.slots = slots }
}

/// The same buffer, describing its elements.
final class ReflectedPeerSlots: PeerSlots, GraphReflectable {
  var graphChildren: [GraphChild] {
    peers.enumerated().map { .strong("elements[\($0.offset)]", $0.element) }
  }
}
