import RetainGraphTesting
import XCTest

final class SweptObject {}

/// `LeakCheckingTestCase.checksProperties`: the property sweep is a choice of its own. The same
/// property left set fails the test that sweeps and passes the one that does not.
final class PropertySweepChoiceXCTests: LeakCheckingTestCase {
  /// Swept in the test whose name says so only.
  override var checksProperties: Bool { name.contains("Sweeps") }
  override var propertiesExemptFromLeakCheck: Set<String> { ["sweepFailures"] }

  /// Never reset in tearDown(): the sweep fails the test for it.
  private var kept: SweptObject?
  private var sweepFailures: [String] = []

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if description.contains("was not reset in tearDown()") {
      sweepFailures.append(description)
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  override func invokeTest() {
    super.invokeTest()
    let expected = checksProperties ? 1 : 0
    XCTAssertEqual(sweepFailures.count, expected, "\(sweepFailures)")
    XCTAssertTrue(
      sweepFailures.allSatisfy { $0.hasPrefix("`kept` was not reset in tearDown()") }, "\(sweepFailures)")
    sweepFailures = []
    kept = nil
  }

  func testAPropertyLeftSetPassesWithoutTheSweep() {
    kept = SweptObject()
  }

  func testAPropertyLeftSetFailsWhenTheTestSweeps() {
    kept = SweptObject()
  }
}
