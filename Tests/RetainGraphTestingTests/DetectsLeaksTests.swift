import RetainGraph
import RetainGraphTestSupport
import RetainGraphTesting
import Samples
import Testing

@Suite("The .detectsLeaks trait and track(_:)")
struct DetectsLeaksTests {
  /// Runs `body` in the trait's scope as Swift Testing does around a test, so that the check after
  /// the body can be seen with `withKnownIssue`.
  private func runInTraitScope(
    _ trait: LeakDetectionTrait, _ body: @escaping @Sendable () async throws -> Void
  ) async throws {
    let test = try #require(Test.current)
    try await trait.provideScope(for: test, testCase: Test.Case.current, performing: body)
  }

  @Test func reportsATrackedSurvivorAtItsTrackLineAfterTheBody() async throws {
    let harness = SampleHarness()
    let seen = SeenIssues()
    let line = #line + 4
    try await withKnownIssue {
      try await runInTraitScope(.detectsLeaks(timeout: .milliseconds(200))) {
        _ = harness.make("greeter")
        track(harness.make("observer-token"))
        track(harness.make("greeter"))
      }
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "tracked-observer-token")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func checksEvenWhenTheBodyThrows() async throws {
    struct Failure: Error {}
    let harness = SampleHarness()
    let seen = SeenIssues()
    try await withKnownIssue {
      try await runInTraitScope(.detectsLeaks(timeout: .milliseconds(100))) {
        track(harness.make("retain-cycle"))
        throw Failure()
      }
    } matching: { issue in
      issue.error is Failure || seen.see(issue)
    }
    assertGolden(seen.text, named: "tracked-retain-cycle-after-a-throw")
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test(.detectsLeaks) func fixedTwinsPass() {
    let harness = SampleHarness()
    for name in cleanSamples {
      track(harness.make(name))
    }
  }

  @Test(.detectsLeaks) func aCycleBrokenBeforeTheEndPasses() {
    let harness = SampleHarness()
    let person = track(harness.make("lazy-closure"))
    #expect(person is LeakingPerson)
    // Broken now; the test still holds it (looked at once: waiting could only waste time), and
    // the trait sees it go when the test returns.
    #expect(harness.breakCyclesAndCheckFreed(patience: .zero) == false)
  }

  @Test func trackWithoutTheTraitSaysSo() {
    let seen = SeenIssues()
    let line = #line + 2
    withKnownIssue {
      track(SharedService())
    } matching: { issue in
      issue.sourceLocation?.line == line && seen.see(issue)
    }
    assertGolden(seen.text, named: "track-without-the-trait")
  }

  @Suite(.detectsLeaks)
  struct OnASuite {
    @Test(arguments: cleanSamples) func everyTestIsChecked(sample: String) {
      let harness = SampleHarness()
      track(harness.make(sample))
    }

    @Test func tracksFromChildTasks() async {
      let harness = SampleHarness()
      await withTaskGroup(of: Void.self) { group in
        group.addTask { track(harness.make("delegate")) }
        group.addTask { track(harness.make("greeter")) }
      }
    }
  }
}
