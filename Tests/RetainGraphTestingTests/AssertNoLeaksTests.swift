import RetainGraph
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoLeaks in Swift Testing")
struct AssertNoLeaksSwiftTestingTests {
  @Test func listsEachSurvivorOfTheModuleWithItsCycle() {
    let harness = SampleHarness()
    let line = #line + 2
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { harness.make("viper-module") }
    } matching: { issue in
      let text = issue.description
      return issue.sourceLocation?.line == line
        && text.contains(
          "2 objects reachable from ViewController are still alive 0.2 seconds after ViewController was released:"
        )
        && text.contains("  Presenter: in the retain cycle below")
        && text.contains("  Interactor: in the retain cycle below")
        && !text.contains("ViewController: ")
        && text.contains("fix: make Interactor.output weak")
        && !text.contains("Retained from outside the graph")
        && text.contains(renderHint)
    }
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test(arguments: leakingSamples)
  func explainsEveryLeakingSample(sample: String, fix: String) {
    let harness = SampleHarness()
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { harness.make(sample) }
    } matching: { issue in
      issue.description.contains("still alive 0.2 seconds after") && issue.description.contains(fix)
    }
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
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(200)) { ServiceClient(service: service) }
    } matching: { issue in
      let text = issue.description
      return text.contains("1 object reachable from ServiceClient is still alive")
        && text.contains("  SharedService: retained from outside the graph")
        && text.contains("Retained from outside the graph: no retain cycle keeps these")
        && text.contains(" ├─ service → SharedService")
        && !text.contains("ImageCache")
        && !text.contains("retain cycle below")
    }
  }

  @Test func findsTheInternalLeakThatAssertDeallocatedMisses() throws {
    let harness = SampleHarness()
    // The view goes, so a check of the root alone passes; the presenter and interactor stay.
    #expect(verifyDeallocated { harness.make("viper-module") } == nil)
    let text = try #require(verifyNoLeaks(timeout: .milliseconds(100)) { harness.make("viper-module") })
    #expect(text.contains("Interactor: in the retain cycle below"))
    #expect(verifyNoLeaks { harness.make("viper-module-fixed") } == nil)
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func acceptsAValueRoot() {
    let harness = SampleHarness()
    struct Module {
      var view: AnyObject
      var extra: [AnyObject]
    }
    withKnownIssue {
      assertNoLeaks(timeout: .milliseconds(100)) {
        Module(view: harness.make("greeter"), extra: [harness.make("retain-cycle")])
      }
    } matching: { issue in
      issue.description.contains("2 objects reachable from Module are still alive")
        && issue.description.contains("CycleB.a")
    }
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
    XCTAssertTrue(
      failure.description.contains("VIPER module\n2 objects reachable from ViewController are still alive"),
      failure.description)
    XCTAssertTrue(failure.description.contains("fix: make Interactor.output weak"), failure.description)
    XCTAssertTrue(harness.breakCyclesAndCheckFreed())
  }

  func testPassesOnTheFixedTwin() {
    let harness = SampleHarness()
    XCTAssertTrue(failures { assertNoLeaks { harness.make("viper-module-fixed") } }.isEmpty)
    XCTAssertEqual(harness.aliveCount, 0)
  }
}
