import RetainGraphSupport
import Testing

@testable import RetainGraph

/// The library's own process-wide caches (`ForkSafeMutex`) are not walked: the walk changes them as
/// it goes, and the heap census's count crashed in a forked child on a cache's dictionary storage
/// the same walk had grown and freed (seen 2 runs in 8 with the fork tests beside the leak counts).
@Suite struct OwnCachesTests {
  final class Held {}

  @Test func aCacheIsOneNodeWithNoReferences() {
    let held = Held()
    let cache = ForkSafeMutex<[Int: Held]>([1: held])
    let graph = ObjectGraph(reflecting: cache)
    #expect(graph.nodes.count == 1)
    #expect(graph.edges.isEmpty)
    // The same dictionary outside a cache is walked.
    let plain: [Int: Held] = [1: held]
    #expect(ObjectGraph(reflecting: plain).nodes.contains { $0.typeName.hasSuffix("Held") })
  }
}
