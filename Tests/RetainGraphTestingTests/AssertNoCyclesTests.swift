import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoCycles in Swift Testing")
struct AssertNoCyclesSwiftTestingTests {
  @Test func reportsTheLeakTraceAtTheCallersLine() throws {
    let instance = try #require(Sample.named("viper-module")).make()
    defer { instance.breakCycles() }
    let seen = SeenIssues()
    let expectedLine = #line + 2
    withKnownIssue {
      assertNoCycles(instance.root)
    } matching: { issue in
      issue.sourceLocation?.line == expectedLine && seen.see(issue)
    }
    assertGolden(seen.text, named: "viper-module")
  }

  @Test func passesOnTheFixedTwinAndWithAnAcceptedCycle() throws {
    let fixed = try #require(Sample.named("viper-module-fixed")).make()
    assertNoCycles(fixed.root)
    let leaking = try #require(Sample.named("viper-module")).make()
    defer { leaking.breakCycles() }
    assertNoCycles(leaking.root, options: GraphOptions(ignoredLabels: ["Interactor.output"]))
    assertGolden(try #require(verifyNoCycles(leaking.root)), named: "verify-viper-module")
    #expect(verifyNoCycles(fixed.root) == nil)
  }

  @Test func closureCycleMessageNamesTheClosure() throws {
    let instance = try #require(Sample.named("lazy-closure")).make()
    defer { instance.breakCycles() }
    let seen = SeenIssues()
    withKnownIssue {
      assertNoCycles(instance.root, "person screen")
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "lazy-closure-with-context")
  }
}

final class AssertNoCyclesXCTests: FailureCapturingTestCase {
  func testFailureLandsAtTheCallersLine() throws {
    let instance = try XCTUnwrap(Sample.named("retain-cycle")).make()
    defer { instance.breakCycles() }
    let line = #line + 1
    let recorded = failures { assertNoCycles(instance.root) }
    XCTAssertEqual(recorded.count, 1)
    let issue = try XCTUnwrap(recorded.first)
    XCTAssertEqual(issue.line, line)
    XCTAssertTrue(issue.file.hasSuffix("RetainGraphTestingTests/AssertNoCyclesTests.swift"), issue.file)
    assertGolden(issue.description, named: "xctest-retain-cycle")
  }

  func testNoFailureWithoutCycles() throws {
    let instance = try XCTUnwrap(Sample.named("greeter")).make()
    XCTAssertTrue(failures { assertNoCycles(instance.root) }.isEmpty)
  }
}
