internal import RetainGraphSupport

/// The slot the census fills when the program loads (when it links the census).
package enum CensusRegistration {
  private static let slot = ForkSafeMutex<(any CensusProvider)?>(nil)

  /// Whether the current test runs in a census scope (the `.heapCensus` trait, `HeapCensus.run`):
  /// the census is process-wide, and a test that did not ask for it must not find it running
  /// because a parallel test did (its failure texts would then depend on that test's timing).
  @TaskLocal package static var isInScope = false

  /// The `HeapCensus.start()` calls made outside a scope and not yet stopped, oldest first, each
  /// with whether it asked for backtraces: such a start is for the whole process.
  private static let processWideStarts = ForkSafeMutex<[Bool]>([])

  /// Counts a start made outside a scope.
  /// - Parameter recordingBacktraces: whether it asked for allocation backtraces.
  package static func countProcessWideStart(recordingBacktraces: Bool) {
    processWideStarts.withLock { $0.append(recordingBacktraces) }
  }

  /// Counts a stop made outside a scope: it stops the latest start not yet stopped.
  /// - Returns: whether that start asked for backtraces; nil when every start was stopped.
  package static func countProcessWideStop() -> Bool? {
    processWideStarts.withLock { $0.popLast() }
  }

  /// The running census, or nil when none is linked and started for this test: by a scope around
  /// it, or by `HeapCensus.start()` for the whole process.
  package static var running: (any CensusProvider)? {
    guard let provider = slot.withLock({ $0 }), provider.isRunning,
      isInScope || processWideStarts.withLock({ !$0.isEmpty })
    else { return nil }
    return provider
  }

  /// The census linked into the program, started or not; nil when the program does not link it.
  package static var registered: (any CensusProvider)? { slot.withLock { $0 } }

  /// Registers the census (idempotent).
  package static func register(_ provider: any CensusProvider) {
    slot.withLock { $0 = provider }
  }

  /// Whether the census was ever started in this process: it then keeps one `unowned` count on
  /// every object it recorded (its memory, not its life), until the object goes or the census
  /// forgets it.
  package static var mayHoldUnownedCounts: Bool { registered?.hasStarted ?? false }

  /// How the census's counts name one closure's contexts: this, their metadata's address, and `)`.
  package static let closureContextPrefix = "(closure context "

  /// The failure text for a trait that runs tests under the census (`trait`, `.heapCensus`) in a
  /// program that does not link it.
  package static func unlinkedCensusMessage(for trait: String) -> String {
    "\(trait) runs the test under the heap census, which this test program does not link: add the "
      + "product RetainGraphCensus to the test target's dependencies and `import RetainGraphCensus` "
      + "in one of its files."
  }

  /// The failure text for a census-based check made without a census.
  package static func missingCensusMessage(for check: String) -> String {
    "\(check) counts every live object in the process, which needs the heap census: add "
      + "`import RetainGraphCensus` to the test target and run the test under the census with the "
      + "`.heapCensus` trait, `HeapCensus.run { … }`, or `HeapCensus.start()` before the check."
  }
}
