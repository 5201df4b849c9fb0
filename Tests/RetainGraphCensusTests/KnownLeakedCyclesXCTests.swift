import Foundation
import RetainGraphCensus
import RetainGraphTestSupport
import RetainGraphTesting
import XCTest

@testable import RetainGraphKnownCycles

final class KnownPairXC: ScopedPairBase, @unchecked Sendable {}
final class NewPairXC: ScopedPairBase, @unchecked Sendable {}

/// `LeakCheckingTestCase.checksLeakedCycles` with a known-cycles file (``knownCyclesFile``
/// overridden): a test that leaves the listed cycle passes, one that leaves another fails, saying it
/// is new (compared whole against a golden file). `invokeTest()` checks the failures, then breaks
/// the cycles and checks the runtime freed them.
final class KnownLeakedCyclesXCTests: LeakCheckingTestCase {
  override var checksLeakedCycles: Bool { true }
  override var propertiesExemptFromLeakCheck: Set<String> { ["made", "expected", "failures"] }

  /// One package for the class's tests, listing `KnownPairXC`'s cycle.
  private static let package: Result<KnownCyclesPackage, any Error> = Result {
    try KnownCyclesPackage(entries: [try KnownCyclesPackage.entry(for: KnownPairXC.self, reason: "APP-12")])
  }

  override var knownCyclesFile: String? { try? Self.package.get().knownFile }

  override class func tearDown() {
    try? package.get().remove()
    super.tearDown()
  }

  private var expected: [String] = []
  private var failures: [String] = []
  private var made: [WeakBox] = []

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if description.hasPrefix("The test left ") || description.hasPrefix("the known-cycles file") {
      failures.append(description)
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  override func invokeTest() {
    guard let package = try? Self.package.get() else {
      return XCTFail("the temporary package could not be made: \(Self.package)")
    }
    HeapCensus.run { super.invokeTest() }
    XCTAssertEqual(failures.count, expected.count, "\(failures)")
    for (failure, golden) in zip(failures, expected) { assertGolden(package.masked(failure), named: golden) }
    for box in made { box.breakCycle() }
    XCTAssertTrue(made.allSatisfy { $0.object == nil }, "every pair is freed once broken")
    failures = []
    expected = []
    made = []
  }

  func testAListedCyclePasses() {
    made.append(KnownPairXC.make(leaking: true))
    XCTAssertNotNil(made.last?.object, "the runtime keeps the leaked pair")
  }

  func testANewCycleFailsSayingItIsNew() {
    made.append(NewPairXC.make(leaking: true))
    XCTAssertNotNil(made.last?.object, "the runtime keeps the leaked pair")
    expected = ["xctest-new-leaked-cycle"]
  }
}
