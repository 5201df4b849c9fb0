import RetainGraphCensus
import RetainGraphTestSupport
import RetainGraphTesting
import XCTest

final class ScopedPairXC: ScopedPairBase, @unchecked Sendable {}

/// The XCTest forms of the leaked-cycle check: `LeakCheckingTestCase.checksLeakedCycles` and
/// `assertNoLeakedCycles { }`. Each test says which failures it expects (compared whole against
/// golden files); `invokeTest()` checks them, then breaks the cycles and checks the runtime freed
/// them.
final class LeakedCyclesXCTests: LeakCheckingTestCase {
  override var checksLeakedCycles: Bool { true }
  // The bookkeeping below holds no object of a test (weak probes, texts).
  override var propertiesExemptFromLeakCheck: Set<String> { ["made", "expected", "failures"] }

  /// The golden file of each expected failure's message, in order.
  private var expected: [String] = []
  private var failures: [String] = []
  /// Probes on the pairs the tests make, to break and check after the test.
  private var made: [WeakBox] = []

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    let checks = [
      "The test left ", "failed - The code checked by assertNoLeakedCycles",
      "No leaked cycles were looked for", "failed - assertNoLeakedCycles counts every live object",
    ]
    if checks.contains(where: { description.hasPrefix($0) }) {
      failures.append(description)
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  override func invokeTest() {
    HeapCensus.run { super.invokeTest() }
    XCTAssertEqual(failures.count, expected.count, "\(failures)")
    for (failure, golden) in zip(failures, expected) { assertGolden(failure, named: golden) }
    for box in made { box.breakCycle() }
    XCTAssertTrue(made.allSatisfy { $0.object == nil }, "every pair is freed once broken")
    failures = []
    expected = []
    made = []
  }

  func testACycleTheTestLeavesFailsIt() {
    made.append(ScopedPairXC.make(leaking: true))
    XCTAssertNotNil(made.last?.object, "the runtime keeps the leaked pair")
    expected = ["xctest-test-leaves-a-cycle"]
  }

  func testAFixedTwinPasses() {
    made.append(ScopedPairXC.make(leaking: false))
    XCTAssertNil(made.last?.object, "the runtime frees the fixed pair")
  }

  func testTheAssertionNamesTheCycleItsBlockLeft() {
    // The block's cycle fails the assertion; the test's own check then finds it too (the block ran
    // inside the test).
    assertNoLeakedCycles { made.append(ScopedPairXC.make(leaking: true)) }
    expected = ["xctest-block-leaves-a-cycle", "xctest-test-leaves-a-cycle"]
  }

  func testTheAssertionPassesForAFixedTwin() {
    let freed = assertNoLeakedCycles { ScopedPairXC.make(leaking: false) }
    XCTAssertNil(freed.object)
  }
}
