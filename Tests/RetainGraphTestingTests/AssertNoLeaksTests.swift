import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoLeaks in Swift Testing")
struct AssertNoLeaksSwiftTestingTests {
  @Test func listsEachSurvivorOfTheModuleWithItsCycle() {
    let harness = SampleHarness()
    let seen = SeenIssues()
    let line = #line + 2
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { harness.make("viper-module") }
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "viper-module")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test(arguments: leakingSamples)
  func explainsEveryLeakingSample(sample: String) {
    let harness = SampleHarness()
    let seen = SeenIssues()
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { harness.make(sample) }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "cycle-\(sample)")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test(arguments: cleanSamples)
  func passesOnSamplesWithoutCycles(sample: String) {
    let harness = SampleHarness()
    assertNoLeaks { harness.make(sample) }
    #expect(harness.aliveCount == 0)
  }

  @Test func reportsObjectsHeldFromOutsideSeparately() {
    let service = SharedService()
    let seen = SeenIssues()
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { ServiceClient(service: service) }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "retained-from-outside")
  }

  @Test func findsTheInternalLeakThatAssertDeallocatedMisses() throws {
    let harness = SampleHarness()
    // The view goes, so a check of the root alone passes; the presenter and interactor stay.
    #expect(checkDeallocated { harness.make("viper-module") } == nil)
    let text = try #require(checkNoLeaks(timeout: .milliseconds(100)) { harness.make("viper-module") })
      .description
    assertGolden(text, named: "verify-viper-module")
    #expect(checkNoLeaks { harness.make("viper-module-fixed") } == nil)
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func acceptsAValueRoot() {
    let harness = SampleHarness()
    struct Module {
      var view: AnyObject
      var extra: [AnyObject]
    }
    let seen = SeenIssues()
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(100)) {
        Module(view: harness.make("greeter"), extra: [harness.make("retain-cycle")])
      }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "value-root")
    #expect(harness.breakCyclesAndCheckFreed())
  }
}

final class AssertNoLeaksXCTests: FailureCapturingTestCase {
  func testFailureLandsAtTheCallersLineWithEverySurvivor() throws {
    let harness = SampleHarness()
    let line = #line + 2
    let recorded = failures {
      assertNoLeaks(timeout: .milliseconds(200), "VIPER module") { harness.make("viper-module") }
    }
    XCTAssertEqual(recorded.count, 1)
    let failure = try XCTUnwrap(recorded.first)
    XCTAssertEqual(failure.line, line)
    XCTAssertTrue(failure.file.hasSuffix("RetainGraphTestingTests/AssertNoLeaksTests.swift"), failure.file)
    assertGolden(failure.description, named: "xctest-viper-module-with-context")
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }

  func testPassesOnTheFixedTwin() {
    let harness = SampleHarness()
    XCTAssertTrue(failures { assertNoLeaks { harness.make("viper-module-fixed") } }.isEmpty)
    XCTAssertEqual(harness.aliveCount, 0)
  }
}
