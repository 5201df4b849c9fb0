/// What a census holder search found for a failure message.
package struct CensusHolderSearch: Sendable, Equatable {
  /// The shortest retainer path as one line (`ImageCache.shared.images[0]`); nil when the census
  /// sees no holder (or the search failed).
  package var holderPath: String?
  /// Where the object was allocated (`allocated in makeImage() ← …`), when call stacks are recorded.
  package var allocation: String?
  /// Why the search gave no answer, as a sentence (`the holder search crashed: …`); nil when it
  /// answered.
  package var failure: String?
  /// What the search found the object to be, as the walk names it: its type, or for a closure
  /// context the closure's function (`closure #1 in App.Feed.reload()`).
  package var targetName: String?

  package init(holderPath: String? = nil, allocation: String? = nil, failure: String? = nil) {
    self.holderPath = holderPath
    self.allocation = allocation
    self.failure = failure
  }
}
