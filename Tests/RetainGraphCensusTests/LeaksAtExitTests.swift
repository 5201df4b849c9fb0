import Foundation
import RetainGraph
import Synchronization
import Testing

@testable import RetainGraphCensus

final class ScopedPairAtExit: ScopedPairBase, @unchecked Sendable {}

extension CensusTests {
  /// `RETAIN_GRAPH_LEAKS=1` names the function that made each cycle from its allocation call stack
  /// (the whole run, with its exit status, is checked on the package made from the README's
  /// snippet: `Scripts/check-snippet.sh`).
  @Suite struct LeaksAtExit {
    /// A cycle made in a test is made by that test; one made in a `Task { }` the test starts, by
    /// the closure in that test. Weak probes show the runtime keeps both.
    @Test func aCycleIsMadeByTheTestThatAllocatedIt() async throws {
      let mark = HeapCensus.mark()
      let (inTest, inTask) = await HeapCensus.run(recordingBacktraces: true) {
        let inTest = ScopedPairAtExit.make(leaking: true)
        let inTask = await Task { ScopedPairInTask.make(leaking: true) }.value
        return (inTest, inTask)
      }
      defer {
        inTest.breakCycle()
        inTask.breakCycle()
      }
      #expect(inTest.object != nil && inTask.object != nil, "the runtime keeps both pairs")
      let report = try HeapCensus.leaks(since: mark, scopes: nil, attributing: true, timeout: .seconds(60))
      let makers = Dictionary(
        report.leaks.compactMap { leak in leak.cycleTypes.first.map { ($0, leak.madeBy ?? "nil") } },
        uniquingKeysWith: { first, _ in first })
      let test = "CensusTests.LeaksAtExit.aCycleIsMadeByTheTestThatAllocatedIt()"
      #expect(makers["ScopedPairAtExit"]?.hasSuffix(test) == true, "\(makers)")
      #expect(makers["ScopedPairInTask"]?.hasPrefix("closure #1 in ") == true, "\(makers)")
      #expect(makers["ScopedPairInTask"]?.contains(test) == true, "\(makers)")
      // The text names the maker above the trace.
      #expect(report.cycleSections.contains("made by \(makers["ScopedPairAtExit"] ?? "?")\nScopedPairAtExit"))
    }

    /// Frames' names as people write them: no signature, no async resumption prefix.
    @Test func makersAreNamedWithoutSignatures() {
      let shortName = RetainGraphCensus.LeaksAtExit.shortName
      #expect(
        shortName(
          "(1) suspend resume partial function for closure #1 () async -> (App.Box, App.Box) in closure "
            + "#2 (Swift.Int) -> () in App.Tests.run(count: Swift.Int) async throws -> ()")
          == "closure #1 in closure #2 in App.Tests.run(count: Swift.Int)")
      #expect(
        shortName("static App.Pair.make(leaking: Swift.Bool) -> App.Box")
          == "static App.Pair.make(leaking: Swift.Bool)")
      #expect(
        shortName("(2) await resume partial function for App.Tests.load() async -> ()") == "App.Tests.load()")
    }

    /// Names of thunks test frameworks generate are left out; names people write are kept.
    @Test func generatedFramesAreLeftOut() {
      #expect(RetainGraphCensus.LeaksAtExit.isGenerated("reabstraction thunk helper from @escaping ()"))
      #expect(RetainGraphCensus.LeaksAtExit.isGenerated("static MyTests.__allTests__MyTests"))
      #expect(!RetainGraphCensus.LeaksAtExit.isGenerated("MyTests.testCheckout()"))
      #expect(!RetainGraphCensus.LeaksAtExit.isGenerated("closure #1 in MyTests.testCheckout()"))
    }
  }
}
