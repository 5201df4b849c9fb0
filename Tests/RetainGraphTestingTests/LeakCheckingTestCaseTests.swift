import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import XCTest

/// A `LeakCheckingTestCase` whose tests leak on purpose; `invokeTest()` checks, after the sweep, that
/// it failed as each test expects, then cleans up and checks that everything is freed.
final class LeakCheckingTestCaseTests: LeakCheckingTestCase {
  // Set before setUp: a constant, never swept.
  let harness = SampleHarness()
  let constant = Greeter(name: "constant")
  // Lazy and value-typed: never swept.
  lazy var formatter = GreetingFormatter()
  var count = 0
  var greeting: () -> String = { "" }
  // Swept.
  var sut: AnyObject?
  var module: [String: [AnyObject]] = [:]
  var forgotten: AnyObject?
  var list: AnyObject?
  var repository: AnyObject?
  /// Breaks the cycles the tests make on purpose (weakly: they hold nothing alive).
  private var breakers: [() -> Void] = []

  /// The golden file of each expected sweep failure's message, in order.
  private var expected: [String] = []
  private var sweepFailures: [String] = []

  override var leakCheckTimeout: Duration { .milliseconds(200) }

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if filePath.hasSuffix("LeakCheckingTestCase.swift") {
      sweepFailures.append(description)
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  override func invokeTest() {
    super.invokeTest()
    XCTAssertEqual(sweepFailures.count, expected.count, "\(sweepFailures)")
    for (failure, golden) in zip(sweepFailures, expected) {
      assertGolden(failure, named: golden)
    }
    forgotten = nil
    greeting = { "" }
    breakers.forEach { $0() }
    breakers = []
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
    sweepFailures = []
    expected = []
  }

  override func tearDown() {
    sut = nil
    module = [:]
    list = nil
    repository = nil
    super.tearDown()
  }

  func testASurvivorHeldByAnotherSurvivorIsNamedWithItsHolder() {
    let repository = NotesRepository()
    let list = NotesListViewModel(repository: repository)
    breakers.append { [weak list] in list?.onChange = nil }
    self.list = list
    self.repository = repository
    expected = ["survivor-held-by-a-survivor-list", "survivor-held-by-a-survivor-repository"]
  }

  func testALeakingPropertyIsNamedWithItsCycle() {
    sut = harness.make("retain-cycle")
    expected = ["leaking-property"]
  }

  func testObjectsInCollectionsAreSwept() {
    module = ["screens": [harness.make("greeter"), harness.make("lazy-closure")]]
    expected = ["object-in-a-collection"]
  }

  func testAPropertyNotResetInTearDownIsNotCalledALeak() {
    forgotten = harness.make("greeter")
    expected = ["property-not-reset"]
  }

  func testAPropertyNotResetThatWouldAlsoLeakSaysBoth() {
    forgotten = harness.make("observer-token")
    expected = ["property-not-reset-that-would-leak"]
  }

  func testConstantsLazyAndValuePropertiesAreSkipped() {
    _ = formatter
    count += 1
    let leaking = harness.make("lazy-closure")
    greeting = { "\(leaking)" }
  }

  func testFixedTwinsPass() {
    sut = harness.make("viper-module-fixed")
    module = ["all": cleanSamples.map { harness.make($0) }]
  }
}

/// A view model that leaks through its own closure and holds a repository that does not.
final class NotesListViewModel {
  let repository: NotesRepository
  var onChange: (() -> Void)?
  var notes = 0

  init(repository: NotesRepository) {
    self.repository = repository
    onChange = { self.notes += 1 }
  }
}

final class NotesRepository {}
