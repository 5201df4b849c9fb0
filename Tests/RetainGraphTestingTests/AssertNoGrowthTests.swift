import RetainGraph
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoGrowth and assertInstances in Swift Testing")
struct AssertNoGrowthSwiftTestingTests {
  @Test func aGrowingObserverListFailsWithCountsAndAPath() {
    var dashboard: Dashboard? = Dashboard(removesObservers: false)
    let probe = Weak(dashboard)
    let line = #line + 2
    withKnownIssue {
      assertNoGrowth(iterations: 5, of: dashboard) { $0?.openAndCloseScreen() }
    } matching: { issue in
      let text = issue.description
      return issue.sourceLocation?.line == line
        && text.contains("1 type of object reachable from Dashboard kept growing over 5 runs of the scenario")
        && text.contains("(runs 2–4 judged; the first and the last are ignored)")
        && text.contains("  Observer: 1, 2, 3, 4, 5 after each run")
        && text.contains(
          "a new instance after run 4, reached by:\n      Dashboard\n       ├─ bus → EventBus\n"
            + "       ├─ observers[3] → Observer")
        && text.contains(renderHint)
    }
    dashboard = nil
    #expect(probe.object == nil)
  }

  @Test func theFixedScenarioPasses() {
    let dashboard = Dashboard(removesObservers: true)
    assertNoGrowth(of: dashboard) { $0.openAndCloseScreen() }
    #expect(dashboard.bus.observers.isEmpty)
  }

  @Test func aBoundedCacheNeedsAnAllowance() {
    let dashboard = Dashboard(removesObservers: true, cachesPerRun: true)
    withKnownIssue {
      assertNoGrowth(iterations: 4, of: dashboard) { $0.openAndCloseScreen() }
    } matching: { issue in
      issue.description.contains("ImageCache: 1, 2, 3, 3 after each run")
        && issue.description.contains("├─ caches[2] → ImageCache")
    }
    assertNoGrowth(iterations: 4, of: dashboard, allowing: [.type(ImageCache.self, survivors: 0...3)]) {
      $0.openAndCloseScreen()
    }
  }

  @Test func aCacheOutsideItsAllowanceFails() throws {
    let dashboard = Dashboard(removesObservers: true, cachesPerRun: true)
    let text = try #require(
      verifyNoGrowth(iterations: 4, of: dashboard, allowing: [.type(ImageCache.self, survivors: 0...2)]) {
        $0.openAndCloseScreen()
      })
    #expect(
      text.contains("ImageCache: 1, 2, 3, 3 after each run; 3 after run 3 is outside its allowance of 0...2"))
  }

  @Test func fewerThanFourIterationsIsAnIssue() {
    let dashboard = Dashboard(removesObservers: false)
    withKnownIssue {
      assertNoGrowth(iterations: 3, of: dashboard) { $0.openAndCloseScreen() }
    } matching: { issue in
      issue.description.contains("assertNoGrowth needs at least 4 iterations, got 3")
    }
    #expect(dashboard.bus.observers.isEmpty)
  }

  @Test func theAsyncVariantRunsAnAsyncScenario() async {
    let dashboard = Dashboard(removesObservers: false)
    await withKnownIssue {
      await assertNoGrowth(of: dashboard) { dashboard in
        await Task.yield()
        dashboard.openAndCloseScreen()
      }
    } matching: { issue in
      issue.description.contains("Observer: 1, 2, 3, 4, 5")
    }
    await assertNoGrowth(of: Dashboard(removesObservers: true)) { $0.openAndCloseScreen() }
  }

  @Test func growthThroughACycleShowsTheCycleToo() {
    let harness = SampleHarness()
    final class Holder {
      var screens: [AnyObject] = []
    }
    let holder = Holder()
    withKnownIssue {
      assertNoGrowth(of: holder) { holder in
        holder.screens.append(harness.make("retain-cycle"))
      }
    } matching: { issue in
      issue.description.contains("CycleA: 1, 2, 3, 4, 5")
        && issue.description.contains("CycleB: 1, 2, 3, 4, 5")
        && issue.description.contains("The graph after run 4 also has:")
    }
    holder.screens = []
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func assertInstancesCountsEveryInstanceWithItsPath() {
    let dashboard = Dashboard(removesObservers: false)
    for _ in 0..<3 { dashboard.openAndCloseScreen() }
    let line = #line + 2
    withKnownIssue {
      assertInstances(of: Observer.self, atMost: 2, in: dashboard)
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.description.contains("3 instances of Observer reachable from Dashboard; at most 2 allowed")
        && issue.description.contains("├─ observers[2] → Observer")
    }
    assertInstances(of: Observer.self, atMost: 3, in: dashboard)
    assertInstances(of: ImageCache.self, atMost: 0, in: dashboard)
    #expect(verifyInstances(of: EventBus.self, atMost: 1, in: dashboard) == nil)
  }
}

final class AssertNoGrowthXCTests: FailureCapturingTestCase {
  func testGrowthFailsAtTheCallersLine() throws {
    let dashboard = Dashboard(removesObservers: false)
    let line = #line + 2
    let recorded = failures {
      assertNoGrowth(iterations: 4, of: dashboard, "dashboard") { $0.openAndCloseScreen() }
    }
    XCTAssertEqual(recorded.map(\.line), [line])
    let text = try XCTUnwrap(recorded.first?.description)
    XCTAssertTrue(text.contains("dashboard\n1 type of object"), text)
    XCTAssertTrue(text.contains("Observer: 1, 2, 3, 4 after each run"), text)
  }

  func testTheFixedScenarioPasses() {
    let dashboard = Dashboard(removesObservers: true, cachesPerRun: true)
    let recorded = failures {
      assertNoGrowth(of: dashboard, allowing: [.type(ImageCache.self, survivors: 0...3)]) {
        $0.openAndCloseScreen()
      }
    }
    XCTAssertTrue(recorded.isEmpty)
  }

  func testAssertInstances() throws {
    let dashboard = Dashboard(removesObservers: false)
    dashboard.openAndCloseScreen()
    dashboard.openAndCloseScreen()
    let line = #line + 1
    let recorded = failures { assertInstances(of: Observer.self, atMost: 1, in: dashboard) }
    XCTAssertEqual(recorded.map(\.line), [line])
    XCTAssertTrue(recorded.first?.description.contains("2 instances of Observer") == true)
    XCTAssertTrue(failures { assertInstances(of: Observer.self, atMost: 2, in: dashboard) }.isEmpty)
  }
}
