import Dispatch
import Foundation
import RetainGraphTestSupport
import RetainGraphTesting
import Testing
import XCTest

/// A token whose last reference is dropped by a block queued on `DispatchQueue.main`.
func tokenReleasedOnTheMainQueue(id: Int) -> Token {
  let token = Token(id: id)
  DispatchQueue.main.async { withExtendedLifetime(token) {} }
  return token
}

/// On Linux the main actor's executor is the main dispatch queue, drained by a thread that is not the
/// main thread: a synchronous check on the main actor blocks the very queue the release waits on.
@Suite("A release on the main queue, checked from the main actor")
@MainActor
struct MainActorReleaseTests {
  @Test func theSynchronousCheckSaysToAwait() {
    let seen = SeenIssues()
    withKnownIssue {
      assertDeallocated(timeout: .milliseconds(200)) { tokenReleasedOnTheMainQueue(id: 1) }
    } matching: { issue in
      seen.see(issue)
    }
    assertGolden(seen.text, named: "main-actor-sync")
  }

  @Test func theAwaitedCheckLetsTheQueueRun() async {
    await assertDeallocated(timeout: .seconds(10)) { tokenReleasedOnTheMainQueue(id: 2) }
  }
}

@Suite("A release on the main queue, checked off the main actor")
struct OffMainActorReleaseTests {
  @Test func theSynchronousCheckPasses() {
    assertDeallocated(timeout: .seconds(10)) { tokenReleasedOnTheMainQueue(id: 3) }
  }
}

final class MainQueueReleaseXCTests: XCTestCase {
  /// XCTest runs tests on the main thread: the wait spins the main run loop, which drains the queue.
  func testTheSynchronousCheckPassesOnTheMainThread() {
    XCTAssertTrue(Thread.isMainThread)
    assertDeallocated(timeout: .seconds(10)) { tokenReleasedOnTheMainQueue(id: 4) }
  }
}
