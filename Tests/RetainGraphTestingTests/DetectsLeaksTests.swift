import RetainGraph
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
    let line = #line + 4
    try await withKnownIssue {
      try await runInTraitScope(.detectsLeaks(timeout: .milliseconds(200))) {
        _ = harness.make("greeter")
        track(harness.make("observer-token"))
        track(harness.make("greeter"))
      }
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.description.contains(
          "Screen (tracked for leaks) is still alive 0.2 seconds after the test ended")
        && issue.description.contains("fix: capture [weak self] (or [unowned self]) in Notifier.observers[0]")
        && issue.description.contains(renderHint)
    }
    #expect(harness.breakCyclesAndCheckFreed())
  }

  @Test func checksEvenWhenTheBodyThrows() async throws {
    struct Failure: Error {}
    let harness = SampleHarness()
    try await withKnownIssue {
      try await runInTraitScope(.detectsLeaks(timeout: .milliseconds(100))) {
        track(harness.make("retain-cycle"))
        throw Failure()
      }
    } matching: { issue in
      issue.error is Failure || issue.description.contains("fix: make CycleB.a weak")
    }
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
    #expect(harness.breakCyclesAndCheckFreed() == false)  // the test still holds it
    _ = harness.breakCyclesAndCheckFreed()
  }

  @Test func trackWithoutTheTraitSaysSo() {
    let line = #line + 2
    withKnownIssue {
      track(SharedService())
    } matching: { issue in
      issue.sourceLocation?.line == line
        && issue.description.contains("track(_:) needs the .detectsLeaks trait: SharedService is not tracked")
        && issue.description.contains("@Test(.detectsLeaks) or @Suite(.detectsLeaks)")
    }
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
