import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing
import XCTest

@Suite("assertNoGrowth and assertInstances in Swift Testing")
struct AssertNoGrowthSwiftTestingTests {
  @Test func aGrowingObserverListFailsWithCountsAndAPath() {
    var dashboard: Dashboard? = Dashboard(removesObservers: false)
    let probe = Weak(dashboard)
    let seen = SeenIssues()
    let line = #line + 2
    withKnownIssue {
      assertNoGrowth(iterations: 5, of: dashboard) { $0?.openAndCloseScreen() }
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "growing-observers")
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
    let seen = SeenIssues()
    withKnownIssue {
      assertNoGrowth(iterations: 4, of: dashboard) { $0.openAndCloseScreen() }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "bounded-cache")
    assertNoGrowth(iterations: 4, of: dashboard, allowing: [.type(ImageCache.self, survivors: 0...3)]) {
      $0.openAndCloseScreen()
    }
  }

  @Test func aCacheOutsideItsAllowanceFails() throws {
    let dashboard = Dashboard(removesObservers: true, cachesPerRun: true)
    let text = try #require(
      checkNoGrowth(iterations: 4, of: dashboard, allowing: [.type(ImageCache.self, survivors: 0...2)]) {
        $0.openAndCloseScreen()
      }
    ).description
    assertGolden(text, named: "verify-cache-outside-allowance")
  }

  @Test func closuresKeptOnPurposeNeedAClosureAllowance() throws {
    // Each run keeps a closure (capturing a Box and an Int), up to three.
    let boxes = GrowthAllowance.type(BoundedHandlers.Box.self, survivors: 0...3)
    let unallowed = try #require(
      checkNoGrowth(iterations: 4, of: BoundedHandlers(), allowing: [boxes]) { $0.run() }
    ).description
    #expect(
      unallowed.contains(
        "BoundedHandlers.handlers grows by 1 per run: closure #1 in BoundedHandlers.run() (1, 2, 3, 3 after each run)"
      ))
    let otherClosures = checkNoGrowth(
      iterations: 4, of: BoundedHandlers(),
      allowing: [boxes, .closures(named: "Unrelated", survivors: 0...3)]
    ) { $0.run() }?.description
    #expect(otherClosures != nil)
    let handlers = BoundedHandlers()
    assertNoGrowth(
      iterations: 4, of: handlers,
      allowing: [boxes, .closures(named: "BoundedHandlers.run", survivors: 0...3)]
    ) { $0.run() }
    #expect(handlers.handlers.count == 3)
  }

  @Test func finishedCoordinatorsLeadWithTheHolderLine() throws {
    let app = try #require(Sample.named("finished-coordinators")?.make().root as? AppCoordinator)
    let text = try #require(checkNoGrowth(of: app) { $0.startCheckout() }).description
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines.dropFirst().first
        == "  AppCoordinator.children grows by 1 per run: FixedChildCoordinator (4, 5, 6, 7, 8 after each run)"
    )
    assertGolden(text, named: "finished-coordinators")
  }

  @Test func closuresHeldByAGrowingObjectAreFoldedIntoItsHolder() throws {
    let flows = Flows()
    let text = try #require(checkNoGrowth(of: flows) { $0.start() }).description
    let findings = text.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }
    #expect(findings == ["  Flows.running grows by 1 per run: Flow (1, 2, 3, 4, 5 after each run)"])
    #expect(text.contains("\n    with them: closure #1 in Flow.init(step:) (1 per run)\n"))
    assertGolden(text, named: "closures-folded-into-holder")
  }

  @Test func aPropertyAllowanceCoversWhatThePropertyHolds() throws {
    let make = { (iterations: Int, allowances: [GrowthAllowance]) in
      let app = AppCoordinator()
      return checkNoGrowth(iterations: iterations, of: app, allowing: allowances) { $0.startCheckout() }?
        .description
    }
    #expect(make(5, [.property("AppCoordinator.children", survivors: 0...5)]) == nil)
    #expect(make(5, [.property("Samples.AppCoordinator.children", survivors: 0...5)]) == nil)
    #expect(make(5, [.type(FixedChildCoordinator.self, survivors: 0...5)]) == nil)
    #expect(make(5, [.property("AppCoordinator.parent", survivors: 0...5)]) != nil)
    #expect(make(5, [.type(CheckoutCoordinator.self, survivors: 0...5)]) != nil)
    let outside = try #require(make(5, [.property("AppCoordinator.children", survivors: 0...3)]))
    let expected =
      "  AppCoordinator.children: holds 1, 2, 3, 4, 5 after each run; 4 after run 4 is outside its "
      + "allowance of 0...3 survivors"
    #expect(outside.split(separator: "\n").dropFirst().first.map(String.init) == expected)
    // What the property holds is covered with it: the closures a held flow stores do not fail.
    #expect(
      checkNoGrowth(of: Flows(), allowing: [.property("Flows.running", survivors: 0...5)]) { $0.start() }
        == nil)
    let runs = Flows()
    assertNoGrowth(of: runs, allowing: [.property("Flows.running", survivors: 0...5)]) { $0.start() }
    #expect(runs.running.count == 5)
  }

  @Test func fewerThanFourIterationsIsAnIssue() {
    let dashboard = Dashboard(removesObservers: false)
    let seen = SeenIssues()
    withKnownIssue {
      assertNoGrowth(iterations: 3, of: dashboard) { $0.openAndCloseScreen() }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "too-few-iterations")
    #expect(dashboard.bus.observers.isEmpty)
  }

  @Test func theAsyncVariantRunsAnAsyncScenario() async {
    let dashboard = Dashboard(removesObservers: false)
    let seen = SeenIssues()
    await withKnownIssue {
      await assertNoGrowth(of: dashboard) { dashboard in
        await Task.yield()
        dashboard.openAndCloseScreen()
      }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "async-growing-observers")
    await assertNoGrowth(of: Dashboard(removesObservers: true)) { $0.openAndCloseScreen() }
  }

  @Test func growthThroughACycleShowsTheCycleToo() {
    let harness = SampleHarness()
    final class Holder {
      var screens: [AnyObject] = []
    }
    let holder = Holder()
    let seen = SeenIssues()
    withKnownIssue {
      assertNoGrowth(of: holder) { holder in
        holder.screens.append(harness.make("retain-cycle"))
      }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "growth-through-a-cycle")
    holder.screens = []
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func assertInstancesCountsEveryInstanceWithItsPath() throws {
    let dashboard = Dashboard(removesObservers: false)
    for _ in 0..<3 { dashboard.openAndCloseScreen() }
    let seen = SeenIssues()
    let line = #line + 2
    withKnownIssue {
      assertInstances(of: Observer.self, atMost: 2, in: dashboard)
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "instances-of-observer")
    assertGolden(
      try #require(checkInstances(of: Observer.self, atMost: 1, in: dashboard)).description,
      named: "verify-instances-of-observer")
    assertInstances(of: Observer.self, atMost: 3, in: dashboard)
    assertInstances(of: ImageCache.self, atMost: 0, in: dashboard)
    #expect(checkInstances(of: EventBus.self, atMost: 1, in: dashboard) == nil)
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
    assertGolden(try XCTUnwrap(recorded.first?.description), named: "xctest-growing-observers")
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
    assertGolden(try XCTUnwrap(recorded.first?.description), named: "xctest-instances-of-observer")
    XCTAssertTrue(failures { assertInstances(of: Observer.self, atMost: 2, in: dashboard) }.isEmpty)
  }
}
