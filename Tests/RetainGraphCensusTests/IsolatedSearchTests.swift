import Foundation
import RetainGraph
import RetainGraphTesting
import Testing

@testable import RetainGraphCensus

extension CensusTests {
  /// The holder search of a failure message runs in a forked child (issue 20.2): a fault injected
  /// there (the forked walk's hooks) becomes a sentence of the failure, and the process goes on.
  @Suite(.heapCensus) struct IsolatedSearch {
    @Test func crashedSearchIsASentenceOfTheGrowthFailure() throws {
      defer { CensusEventLog.shared.items.removeAll() }
      let failure = try #require(
        CensusProviderImplementation.shared.withSearchFault(.crash) {
          checkNoGrowth(iterations: 5) { CensusEventLog.shared.items.append(CensusLeakyItem()) }?.description
        })
      let lines = failure.split(separator: "\n").map(String.init)
      let index = try #require(lines.firstIndex { $0.hasPrefix("  CensusLeakyItem:") })
      #expect(
        lines[index...].prefix(2).joined(separator: "\n") == """
            CensusLeakyItem: 1, 2, 3, 4, 5 after each run
              the newest instance: the holder search crashed (its forked child was killed by signal 11, Segmentation fault); the test run goes on
          """)
    }

    @Test func hungSearchIsStoppedAndSaidSo() throws {
      let widgets = (0..<2).map { _ in CensusLeakedWidget() }
      censusLeakedWidgets = widgets
      defer { censusLeakedWidgets = [] }
      let failure = try #require(
        CensusProviderImplementation.shared.withSearchFault(.hang(.seconds(60)), timeout: .milliseconds(300))
        {
          checkInstances(of: CensusLeakedWidget.self, atMost: 1)?.description
        })
      let hung =
        "  the holder search did not finish within 0.3 seconds (its forked child may have blocked on a lock "
        + "another thread held at the fork) and was stopped"
      #expect(
        failure == """
          2 instances of CensusLeakedWidget alive in the process; at most 1 allowed. Retained by:
          \(hung)
          \(hung)
          """)
    }

    @Test func trappedSearchInAssertNoLeaksIsASentence() throws {
      defer { censusRegistry.presenters.removeAll() }
      let failure = try #require(
        CensusProviderImplementation.shared.withSearchFault(.trap) {
          checkNoLeaks(timeout: .milliseconds(20)) { () -> CensusScreen in
            let screen = CensusScreen()
            censusRegistry.presenters.append(screen.presenter)
            return screen
          }?.description
        })
      let line = try #require(failure.split(separator: "\n").first { $0.hasPrefix("  CensusPresenter:") })
      #expect(
        line.hasPrefix(
          "  CensusPresenter: retained from outside the graph (the holder search crashed (its forked child was killed by signal "
        ))
      #expect(line.hasSuffix("); the test run goes on)"))
    }

    @Test func unreadableAnswerIsASentence() throws {
      let search = CensusProviderImplementation.shared.withSearchFault(.bytes([1, 2, 3])) {
        CensusProviderImplementation.shared.holders(of: CensusWidget())
      }
      #expect(search.holderPath == nil)
      #expect(search.failure?.hasPrefix("the holder search failed (its answer could not be read: ") == true)
    }

    @Test func answeredSearchNamesTheHolderFromTheChild() {
      censusRegistry.presenters.append(CensusPresenter())
      defer { censusRegistry.presenters.removeAll() }
      let search = CensusProviderImplementation.shared.holders(of: censusRegistry.presenters[0])
      var expected = CensusHolderSearch(holderPath: "censusRegistry.presenters[0]")
      expected.targetName = "CensusPresenter"
      #expect(search == expected)
    }

    /// A timeout meaning "no limit" (issue 29.8): before, the forked search's reader trapped on it.
    @Test func aTimeoutMeaningNoLimitSearches() throws {
      censusRegistry.presenters.append(CensusPresenter())
      defer { censusRegistry.presenters.removeAll() }
      let report = try HeapCensus.retainers(
        isolating: censusRegistry.presenters[0], timeout: .seconds(Int64.max / 2))
      #expect(report.holderPath == "censusRegistry.presenters[0]")
    }
  }
}
