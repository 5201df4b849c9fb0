/// What the heap census (the `RetainGraphCensus` product) offers the rest of the package. The testing
/// assertions and traits reach the census only through this hook, so that they never make a test
/// link the census's interposer: a program that links the census registers it when it loads (a
/// constructor of `CRetainGraphCensus` calls the census's Swift half), one that does not has none.
package protocol CensusProvider: AnyObject, Sendable {
  /// Whether allocations are being recorded.
  var isRunning: Bool { get }
  /// Whether the census was ever started in this process.
  var hasStarted: Bool { get }
  /// Runs `body` with the census started for it (a scope: the checks inside see it running), and
  /// stops it afterwards, as `HeapCensus.run` does.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - body: the code to run.
  nonisolated(nonsending) func run(
    recordingBacktraces: Bool, _ body: () async throws -> Void
  ) async rethrows
  /// The allocation number the next recorded allocation gets: a mark for "allocated since".
  func mark() -> UInt64
  /// Live objects allocated in one of `windows` (ranges of allocation numbers), counted by
  /// qualified type name, each with one live instance (the newest) to match allowances against and
  /// to explain.
  func liveCounts(allocatedIn windows: [Range<UInt64>]) -> [String: (count: Int, newest: AnyObject?)]
  /// Every live instance of `type` (subclasses and conforming classes too) the census saw.
  func liveObjects<T>(of type: T.Type) -> [AnyObject]
  /// Who holds `object`, searched in a forked child (a crash or a hang there ends only the child):
  /// its shortest retainer path, where it was allocated, or why the search gave no answer.
  func holders(of object: AnyObject) -> CensusHolderSearch
  /// ``holders(of:)`` waited for off the cooperative pool (the calling task suspends).
  nonisolated(nonsending) func searchHolders(of object: AnyObject) async -> CensusHolderSearch
  /// Runs `body` in a new leak scope, with the census started for it: every allocation it makes
  /// (on its task or thread, in child tasks, in `Task { }`s it makes) is marked as the scope's.
  /// - Returns: what `body` returns, and the scope's number.
  func inNewLeakScope<R>(_ body: () throws -> R) rethrows -> (result: R, scope: UInt32)
  /// The async twin of ``inNewLeakScope(_:)``, recording each allocation's call stack too when
  /// `recordingBacktraces` is true.
  nonisolated(nonsending) func inNewLeakScope<R>(
    recordingBacktraces: Bool, _ body: () async throws -> R
  ) async rethrows -> (result: R, scope: UInt32)
  /// The failure text for the leaked cycles that hold an object of leak scope `scope` (each with
  /// its trace and fix; `subject` says who left them, "The test", and `place` where their objects
  /// were allocated, "the test"), or for why none could be looked for; nil when there are none, or
  /// when the known-cycles file at `knownFile` lists each of them and no entry has expired.
  func leakedCyclesProblem(
    inScope scope: UInt32, subject: String, place: String, timeout: Duration, knownFile: String?
  ) -> String?
  /// Runs `body` while no other census check runs (census checks of parallel tests take turns, in
  /// ``CensusCheckTurns``).
  func exclusively<R>(_ body: () throws -> R) rethrows -> R
  /// Calls `body` with the handler blocks the census saw set on the dispatch source `source` (a
  /// `dispatch_source_t`) and not since replaced (nor, for event and registration handlers,
  /// cancelled), each with what it is (`event handler`, `cancel handler`, `registration
  /// handler`), kept alive until `body` returns.
  func withDispatchSourceHandlers(
    of source: UnsafeRawPointer, _ body: ([(block: UnsafeRawPointer, role: String)]) -> Void)
}
