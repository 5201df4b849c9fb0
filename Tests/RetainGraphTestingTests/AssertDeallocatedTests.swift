import Foundation
import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertDeallocated in Swift Testing")
struct AssertDeallocatedSwiftTestingTests {
  @Test(arguments: leakingSamples)
  func explainsTheCycleThatKeepsTheObject(sample: String) {
    let harness = SampleHarness()
    let seen = SeenIssues()
    let line = #line + 2
    withKnownIssue {
      assertDeallocated(timeout: .milliseconds(200)) { harness.make(sample) }
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "cycle-\(sample)")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test(arguments: cleanSamples)
  func passesOnSamplesWithoutCycles(sample: String) {
    let harness = SampleHarness()
    assertDeallocated { harness.make(sample) }
    #expect(harness.aliveCount == 0)
  }

  @Test func saysWhenSomethingOutsideTheGraphHoldsTheObject() {
    let service = SharedService()
    let seen = SeenIssues()
    withKnownIssue {
      assertDeallocated(timeout: .milliseconds(200)) { service }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "retained-from-outside")
  }

  @Test func asyncVariantWaitsForAReleaseOnAnotherTask() async {
    await assertDeallocated(timeout: .seconds(10)) {
      let token = Token(id: 1)
      // Released on a Dispatch thread: the concurrency pool may be busy with other tests.
      DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
        withExtendedLifetime(token) {}
      }
      return token
    }
  }

  @Test func asyncVerifyReturnsNilWhenGone() async {
    let harness = SampleHarness()
    let failure = await checkDeallocated { harness.make("delegate") }?.description
    #expect(failure == nil)
  }

  @Test func asyncVariantExplainsTheSurvivor() async {
    let harness = SampleHarness()
    let seen = SeenIssues()
    await withKnownIssue {
      await assertDeallocated(timeout: .milliseconds(200), "async") {
        await Task.yield()
        return harness.make("lazy-closure")
      }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "async-with-context")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func checkReturnsTheFailure() throws {
    let harness = SampleHarness()
    let text = try #require(checkDeallocated(timeout: .milliseconds(100)) { harness.make("retain-cycle") })
      .description
    assertGolden(text, named: "verify-retain-cycle")
    #expect(checkDeallocated { harness.make("greeter") } == nil)
    #expect(harness.breakCyclesAndCheckFreed())
  }
}

final class AssertDeallocatedXCTests: FailureCapturingTestCase {
  func testFailureLandsAtTheCallersLineWithTheCycle() throws {
    let harness = SampleHarness()
    let line = #line + 2
    let recorded = failures {
      assertDeallocated(timeout: .milliseconds(200)) { harness.make("method-reference") }
    }
    XCTAssertEqual(recorded.count, 1)
    let failure = try XCTUnwrap(recorded.first)
    XCTAssertEqual(failure.line, line)
    XCTAssertTrue(
      failure.file.hasSuffix("RetainGraphTestingTests/AssertDeallocatedTests.swift"), failure.file)
    assertGolden(failure.description, named: "xctest-method-reference")
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }

  func testPassesOnTheFixedTwin() {
    let harness = SampleHarness()
    let recorded = failures {
      assertDeallocated { harness.make("method-reference-fixed") }
    }
    XCTAssertTrue(recorded.isEmpty)
    XCTAssertEqual(harness.aliveCount, 0)
  }

  func testAsyncVariant() async throws {
    let harness = SampleHarness()
    let line = #line + 2
    let recorded = await failures {
      await assertDeallocated(timeout: .milliseconds(200)) { harness.make("observer-token") }
    }
    XCTAssertEqual(recorded.map(\.line), [line])
    assertGolden(
      recorded.map(\.description).joined(separator: "\n-----\n"), named: "xctest-async-observer-token")
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }
}
