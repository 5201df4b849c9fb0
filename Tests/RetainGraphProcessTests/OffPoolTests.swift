import Foundation
import Testing

@testable import RetainGraphProcess

#if canImport(Glibc)
  import Glibc
#endif

/// `OffPool.run`: blocking work on a thread of its own, which hears of its caller's cancellation.
@Suite struct OffPoolTests {
  /// The work runs on a thread that is not the caller's (the caller's thread, of the cooperative
  /// pool, lives on meanwhile, so the two cannot share an id), and its result comes back.
  @Test func theWorkRunsOnAThreadOfItsOwn() async {
    let caller = pthread_self()
    let (worker, isCancelled) = await OffPool.run { flag in (pthread_self(), flag.isSet) }
    #expect(pthread_equal(worker, caller) == 0)
    #expect(!isCancelled)
  }

  /// Cancelling the waiting task sets the flag the work holds; the work still runs to its end and
  /// its result comes back. The task is cancelled from a thread of its own once the work runs (a
  /// loaded parallel run can keep the cooperative pool busy for minutes: nothing here waits on it
  /// until the work has seen the flag or its generous bound has passed).
  @Test func cancellingTheCallerSetsTheFlag() async {
    let started = CancellationFlag()
    let task = Task {
      await OffPool.run { flag -> Bool in
        started.set()
        let deadline = ContinuousClock.now + .seconds(600)
        while !flag.isSet, ContinuousClock.now < deadline { usleep(1_000) }
        return flag.isSet
      }
    }
    let canceller = Thread {
      let deadline = ContinuousClock.now + .seconds(600)
      while !started.isSet, ContinuousClock.now < deadline { usleep(1_000) }
      task.cancel()
    }
    canceller.start()
    #expect(await task.value, "the work never saw its caller's cancellation")
  }
}
