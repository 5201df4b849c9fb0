import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import XCTest

/// Each test tracks objects; the teardown blocks check them before `tearDown()`, which then checks
/// what they recorded.
final class TrackForLeaksXCTests: FailureCapturingTestCase {
  private var harness = SampleHarness()
  private var sut: AnyObject?
  /// The line of each expected failure and the golden file of its message, in order.
  private var expected: [(line: Int, golden: String)] = []

  override func setUp() {
    super.setUp()
    capturing = true
  }

  override func tearDown() {
    capturing = false
    XCTAssertEqual(recorded.map(\.line), expected.map(\.line))
    for (failure, expectation) in zip(recorded, expected) {
      XCTAssertTrue(failure.file.hasSuffix("RetainGraphTestingTests/TrackForLeaksTests.swift"), failure.file)
      assertGolden(failure.description, named: expectation.golden)
    }
    XCTAssertNil(sut)
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
    super.tearDown()
  }

  func testATrackedCycleFailsAtTheTrackLineAfterTheTest() {
    let line = #line + 1
    trackForLeaks(harness.make("lazy-closure"), timeout: .milliseconds(200))
    expected = [(line, "tracked-lazy-closure")]
  }

  func testAfterReleasesThePropertyFirst() {
    sut = harness.make("method-reference")
    let line = #line + 1
    trackForLeaks(sut ?? self, after: { self.sut = nil }, timeout: .milliseconds(200))
    expected = [(line, "tracked-method-reference-after")]
  }

  func testFixedTwinsPass() {
    for name in cleanSamples {
      trackForLeaks(harness.make(name))
    }
    sut = harness.make("viper-module-fixed")
    trackForLeaks(sut ?? self, after: { self.sut = nil })
  }
}

/// A property that `tearDown()` resets still holds the object when the teardown block checks it. The
/// whole test runs with an artifacts folder, so the check's graph is written there, named after the test.
final class TrackForLeaksHeldByTheTestXCTests: FailureCapturingTestCase {
  private var harness = SampleHarness()
  private var sut: AnyObject?
  private var line = 0
  private let folder = freshArtifactsFolder()

  override func invokeTest() {
    GraphArtifacts.withSetting(.folder(folder.path)) { super.invokeTest() }
    try? FileManager.default.removeItem(at: folder.deletingLastPathComponent())
  }

  override func setUp() {
    super.setUp()
    capturing = true
  }

  override func tearDown() {
    capturing = false
    XCTAssertEqual(recorded.map(\.line), [line])
    assertGolden(
      normalizingPaths(
        recorded.map(\.description).joined(separator: "\n-----\n"),
        [folder.path: "$ARTIFACTS", GraphArtifacts.commandLine: "$RETAIN_GRAPH"]),
      named: "tracked-held-by-the-test")
    let stem = "TrackForLeaksHeldByTheTestXCTests.testTheFailureNamesThePropertyAndTheOrder-Greeter-1"
    XCTAssertEqual(filesIn(folder), ["\(stem).dot", "\(stem).html", "\(stem).json"])
    sut = nil
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
    super.tearDown()
  }

  func testTheFailureNamesThePropertyAndTheOrder() {
    sut = harness.make("greeter")
    line = #line + 1
    trackForLeaks(sut ?? self, timeout: .milliseconds(100))
  }
}
