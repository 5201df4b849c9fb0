import RetainGraph
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoCycles in Swift Testing")
struct AssertNoCyclesSwiftTestingTests {
  @Test func reportsTheLeakTraceAtTheCallersLine() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let expectedLine = #line + 2
    withKnownIssue {
      assertNoCycles(instance.root)
    } matching: { issue in
      issue.sourceLocation?.line == expectedLine
        && issue.description.contains("fix: make Interactor.output weak")
        && issue.description.contains("1 retain cycle reachable from ViewController")
    }
  }

  @Test func passesOnTheFixedTwinAndWithAnAcceptedCycle() throws {
    let fixed = try #require(Sample.named("viper-module-fixed")).make()
    assertNoCycles(fixed.root)
    let leaking = try #require(Sample.named("viper-module")).make()
    defer { leaking.breakCycles() }
    assertNoCycles(leaking.root, options: GraphOptions(ignoredLabels: ["Interactor.output"]))
    #expect(verifyNoCycles(leaking.root)?.contains("output") == true)
    #expect(verifyNoCycles(fixed.root) == nil)
  }

  @Test func closureCycleMessageNamesTheClosure() throws {
    let instance = try #require(Sample.named("lazy-closure")).make()
    defer { instance.breakCycles() }
    withKnownIssue {
      assertNoCycles(instance.root, "person screen")
    } matching: { issue in
      issue.description.contains("person screen")
        && issue.description.contains("capture [weak self] (or [unowned self]) in LeakingPerson.greeting")
    }
  }
}

final class AssertNoCyclesXCTests: XCTestCase {
  private var recorded: [(description: String, file: String, line: Int)] = []
  private var capturing = false

  override func recordFailure(
    withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
  ) {
    if capturing {
      recorded.append((description, filePath, lineNumber))
    } else {
      super.recordFailure(
        withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  func testFailureLandsAtTheCallersLine() throws {
    let instance = try XCTUnwrap(Sample.named("retain-cycle")).make()
    defer { instance.breakCycles() }
    capturing = true
    let line = #line + 1
    assertNoCycles(instance.root)
    capturing = false
    XCTAssertEqual(recorded.count, 1)
    let issue = try XCTUnwrap(recorded.first)
    XCTAssertEqual(issue.line, line)
    XCTAssertTrue(issue.file.hasSuffix("RetainGraphTestingTests/AssertNoCyclesTests.swift"), issue.file)
    XCTAssertTrue(issue.description.contains("fix: make CycleB.a weak"), issue.description)
  }

  func testNoFailureWithoutCycles() throws {
    let instance = try XCTUnwrap(Sample.named("greeter")).make()
    capturing = true
    assertNoCycles(instance.root)
    capturing = false
    XCTAssertTrue(recorded.isEmpty)
  }
}
