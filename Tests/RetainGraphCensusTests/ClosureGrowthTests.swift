import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

/// Handlers registered and never removed (a growing closure's contexts).
final class CensusHandlerLog: @unchecked Sendable {
  static let shared = CensusHandlerLog()
  var handlers: [() -> Void] = []
}

/// Registers a handler whose closure captures an item and a tag (two captures: a context of its
/// own, not the item itself).
@inline(never) func registerCensusHandler(_ item: CensusLeakyItem, tag: Int) {
  CensusHandlerLog.shared.handlers.append { _ = (item, tag) }
}

/// Registers a handler and removes it again.
@inline(never) func registerAndRemoveCensusHandler(_ item: CensusLeakyItem, tag: Int) {
  CensusHandlerLog.shared.handlers.append { _ = (tag, item) }
  CensusHandlerLog.shared.handlers.removeLast()
}

extension CensusTests {
  /// Rootless growth of closure contexts (issue 29.5): each closure's contexts are counted apart
  /// and named by the closure's function, with who holds the newest (before: "(closure context): 1,
  /// 2, 3, 4, 5 after each run", all closures together, nothing to act on).
  @Suite(.heapCensus) struct ClosureGrowth {
    @Test func growingClosureContextsNameTheirFunctionAndHolder() throws {
      defer { CensusHandlerLog.shared.handlers.removeAll() }
      var tag = 0
      weak var lastItem: CensusLeakyItem?
      let failure = try #require(
        checkNoGrowth(iterations: 5) {
          tag += 1
          let item = CensusLeakyItem()
          lastItem = item
          registerCensusHandler(item, tag: tag)
        }
      ).description
      let lines = failure.split(separator: "\n").map(String.init)
      // Other tests run in parallel in this process: only this closure's lines are compared.
      let index = try #require(
        lines.firstIndex { $0.hasPrefix("  (closure context of ") && $0.contains("registerCensusHandler") },
        "\(failure)")
      assertGolden(lines[index...].prefix(2).joined(separator: "\n"), named: "growing-closure-contexts")
      // The runtime agrees: the log's handlers keep the items alive, and nothing else does.
      #expect(CensusHandlerLog.shared.handlers.count == 5)
      #expect(lastItem != nil)
      CensusHandlerLog.shared.handlers.removeAll()
      #expect(lastItem == nil)
    }

    @Test func closuresThatAreRemovedAreNotNamed() {
      var tag = 0
      let failure = checkNoGrowth(iterations: 5) {
        tag += 1
        registerAndRemoveCensusHandler(CensusLeakyItem(), tag: tag)
      }?.description
      #expect(failure?.contains("registerAndRemoveCensusHandler") != true)
      #expect(failure?.contains("CensusLeakyItem") != true)
    }
  }
}
