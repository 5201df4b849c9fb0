import RetainGraphCensus
import RetainGraphTesting
import XCTest

/// The XCTest way: every test of the class runs under the census.
final class HeapCensusXCTests: XCTestCase {
  override func invokeTest() {
    HeapCensus.run { super.invokeTest() }
  }

  func testRunsUnderTheCensus() {
    XCTAssertTrue(HeapCensus.isRunning)
  }

  func testProcessWideInstanceLimitPasses() {
    let mark = HeapCensus.mark()
    let widgets = (0..<2).map { _ in CensusWidget() }
    XCTAssertEqual(HeapCensus.liveCount(of: CensusWidget.self, since: mark), 2)
    assertInstances(of: CensusXCWidget.self, atMost: 0)
    withExtendedLifetime(widgets) {}
  }

  func testRootlessGrowthPasses() {
    assertNoGrowth(iterations: 4) { _ = CensusTransient() }
  }
}

final class CensusXCWidget {}
