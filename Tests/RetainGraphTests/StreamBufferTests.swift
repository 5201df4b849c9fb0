import RetainGraph
import RetainGraphTestSupport
import Testing

/// An element an `AsyncStream` buffers (yielded, not yet read) is held by the stream's storage: a
/// cycle through it is found, the runtime keeps it (a weak probe), and the fix is on your side.
@Suite("Stream buffers")
struct StreamBufferTests {
  @Test func aCycleThroughABufferedElementIsFound() {
    weak var probe: BufferedOwner?
    do {
      let owner = BufferedOwner()
      let (stream, continuation) = AsyncStream<BufferedOwner>.makeStream()
      owner.stream = stream
      owner.continuation = continuation
      continuation.yield(owner)
      probe = owner
      let graph = ObjectGraph(reflecting: owner)
      #expect(graph.cycles.count == 1)
      #expect(graph.isComplete)
      assertGolden(graph.report(), named: "buffered-element")
    }
    // The runtime agrees: nothing outside holds the owner, yet it is alive.
    #expect(probe != nil)
    // Breaking the owner's side frees both.
    probe?.continuation = nil
    probe?.stream = nil
    #expect(probe == nil)
  }
}

final class BufferedOwner: @unchecked Sendable {
  var stream: AsyncStream<BufferedOwner>?
  var continuation: AsyncStream<BufferedOwner>.Continuation?
}
