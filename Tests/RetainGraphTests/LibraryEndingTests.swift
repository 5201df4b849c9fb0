import Testing

@testable import RetainGraph

/// A library's stored reference to your object cannot be made weak: the fix is the edit that ends
/// it, as the holder's type tells, never a closure the library was not given.
@Suite struct LibraryEndingTests {
  @Test(arguments: [
    ("Swift.AsyncStream<App.Owner>._Storage", "finish the stream when done"),
    ("NIOEmbedded.NIOAsyncTestingChannel", "close the channel when done"),
    ("OpenCombine.Zip<A, B>.Inner<App.Sink>", "cancel the subscription when done"),
    ("OpenCombine.PassthroughSubject<Swift.Int, Swift.Never>", "cancel the subscription when done"),
    ("Foundation.Timer", "invalidate the timer when done"),
    ("Lib.ObservationToken", "remove the observer when done"),
  ])
  func theEditFollowsTheHolder(holder: String, edit: String) {
    #expect(Advice.ending(holderType: holder, target: "Owner", module: "Lib").hasPrefix(edit))
  }

  @Test func anUnknownHolderIsGivenEveryEndingAndNoClosure() {
    let fix = Advice.ending(holderType: "Swinject.PermanentStorage", target: "Employee", module: "Swinject")
    #expect(
      fix
        == "end what holds the Employee when done (cancel, close, finish, invalidate or remove it): the "
        + "reference is Swinject's and cannot be made weak")
    #expect(!fix.contains("closure"))
  }
}
