import RetainGraph
import RetainGraphTesting
import Samples
import XCTest

/// Each test tracks objects; the teardown blocks check them before `tearDown()`, which then checks
/// what they recorded.
final class TrackForLeaksXCTests: FailureCapturingTestCase {
  private var harness = SampleHarness()
  private var sut: AnyObject?
  /// The line and the texts each expected failure has, in order.
  private var expected: [(line: Int, texts: [String])] = []

  override func setUp() {
    super.setUp()
    capturing = true
  }

  override func tearDown() {
    capturing = false
    XCTAssertEqual(recorded.map(\.line), expected.map(\.line))
    for (failure, expectation) in zip(recorded, expected) {
      XCTAssertTrue(failure.file.hasSuffix("RetainGraphTestingTests/TrackForLeaksTests.swift"), failure.file)
      for text in expectation.texts {
        XCTAssertTrue(failure.description.contains(text), "missing \(text) in \(failure.description)")
      }
    }
    XCTAssertNil(sut)
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
    super.tearDown()
  }

  func testATrackedCycleFailsAtTheTrackLineAfterTheTest() {
    let line = #line + 1
    trackForLeaks(harness.make("lazy-closure"), timeout: .milliseconds(200))
    expected = [
      (
        line,
        [
          "LeakingPerson (tracked for leaks) is still alive 0.2 seconds after the test ended.",
          "fix: capture [weak self] (or [unowned self]) in LeakingPerson.greeting", renderHint,
        ]
      )
    ]
  }

  func testAfterReleasesThePropertyFirst() {
    sut = harness.make("method-reference")
    let line = #line + 1
    trackForLeaks(sut ?? self, after: { self.sut = nil }, timeout: .milliseconds(200))
    expected = [
      (line, ["UseCase (tracked for leaks) is still alive", "`after:` released it", "Service.completion"])
    ]
  }

  func testFixedTwinsPass() {
    for name in cleanSamples {
      trackForLeaks(harness.make(name))
    }
    sut = harness.make("viper-module-fixed")
    trackForLeaks(sut ?? self, after: { self.sut = nil })
  }
}
