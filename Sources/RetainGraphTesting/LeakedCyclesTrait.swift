internal import RetainGraph
internal import RetainGraphKnownCycles
public import Testing

/// A Swift Testing trait that fails a test which leaves a leaked cycle behind: one that no
/// outside reference holds, with an object the test allocated. No root or type is named: the
/// whole census is counted after the test (`HeapCensus.leaks(in:timeout:)`).
///
/// ```swift
/// @Test(.noLeakedCycles) func checkoutFlow() async throws {
///   let flow = CheckoutFlow()
///   try await flow.run()
/// }
/// ```
///
/// It needs the heap census linked into the test program (the `RetainGraphCensus` product, imported
/// once); without it each test with the trait fails, saying so. Each test runs in a leak scope
/// (`LeakScope`) of its own, so tests that run in parallel are told apart: a
/// test fails only for the cycles it made. What the test's code allocates on its task, in child
/// tasks and in `Task { }`s it makes is the test's; allocations on Dispatch queues, threads and in
/// `Task.detached` belong to no test and fail none. A cycle still held when the test returns (by a
/// task that is still running, a queued block, a global) is not garbage yet and is not reported.
///
/// Known cycles: a leaked cycle whose signature `.retain-graph-known.json` lists (at the root of the
/// package the test's file is in, as `assertNoCycles` finds it, or the file ``knownCyclesFile``
/// names) passes until its entry expires; a new one fails, and one whose entry expired fails with
/// the entry's reason.
public struct LeakedCyclesTrait: TestTrait, SuiteTrait, TestScoping {
  /// Whether each allocation's call stack is recorded too (the report then gives each cycle's
  /// allocation site).
  public var recordingBacktraces: Bool
  /// How long the count may take.
  public var timeout: Duration
  /// The known-cycles file to read; nil (the default): `.retain-graph-known.json` at the root of
  /// the package the test's file is in, when there is one. A relative path is taken from the
  /// current directory.
  public var knownCyclesFile: String?

  /// Creates the trait; prefer ``Testing/Trait/noLeakedCycles`` and
  /// ``Testing/Trait/noLeakedCycles(recordingBacktraces:timeout:knownCyclesFile:)``.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - timeout: how long the count may take.
  ///   - knownCyclesFile: the known-cycles file to read (nil: the test's package's, if any).
  public init(
    recordingBacktraces: Bool = false, timeout: Duration = .seconds(60), knownCyclesFile: String? = nil
  ) {
    self.recordingBacktraces = recordingBacktraces
    self.timeout = timeout
    self.knownCyclesFile = knownCyclesFile
  }

  /// True: on a suite, every test in it is checked.
  public var isRecursive: Bool { true }

  /// The trait for each run of a test function; nothing for a suite as a whole.
  /// - Parameters:
  ///   - test: the test or suite.
  ///   - testCase: the test case about to run, or nil.
  /// - Returns: the scope provider, or nil.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    test.isSuite || testCase == nil ? nil : self
  }

  /// Runs the test in a leak scope of its own, then records an issue for each leaked cycle the
  /// test made (or one saying why none could be looked for).
  /// - Parameters:
  ///   - test: the test.
  ///   - testCase: the test case.
  ///   - function: the test body.
  /// - Throws: what the test body throws.
  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await provideScope(census: CensusRegistration.registered, for: test, performing: function)
  }

  /// ``provideScope(for:testCase:performing:)`` with the census the program links, if any.
  func provideScope(
    census: (any CensusProvider)?, for test: Test, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard let census = linked(census, for: "The .noLeakedCycles trait", in: test) else {
      return try await function()
    }
    // A test that throws is checked too: what it left before throwing is its.
    var thrown: (any Error)?
    let scope = await census.inNewLeakScope(recordingBacktraces: recordingBacktraces) {
      do { try await function() } catch { thrown = error }
    }.scope
    let knownFile = knownCyclesFile ?? KnownCycles.packageFile(above: test.sourceLocation.filePath)
    if let problem = census.leakedCyclesProblem(
      inScope: scope, subject: "The test", place: "the test", timeout: timeout, knownFile: knownFile)
    {
      Issue.record(Comment(rawValue: problem), sourceLocation: test.sourceLocation)
    }
    if let thrown { throw thrown }
  }
}

extension Trait where Self == LeakedCyclesTrait {
  /// Fails the test when it leaves a leaked cycle behind.
  public static var noLeakedCycles: Self { LeakedCyclesTrait() }

  /// Fails the test when it leaves a leaked cycle behind.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack, for the cycles'
  ///     allocation sites.
  ///   - timeout: how long the count may take.
  ///   - knownCyclesFile: the known-cycles file to read; nil (the default): the one at the root of
  ///     the package the test's file is in, if any.
  /// - Returns: the trait.
  public static func noLeakedCycles(
    recordingBacktraces: Bool = false, timeout: Duration = .seconds(60), knownCyclesFile: String? = nil
  ) -> Self {
    LeakedCyclesTrait(
      recordingBacktraces: recordingBacktraces, timeout: timeout, knownCyclesFile: knownCyclesFile)
  }
}
