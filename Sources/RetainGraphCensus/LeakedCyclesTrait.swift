internal import RetainGraph
public import Testing

/// A Swift Testing trait that fails a test which leaves a leaked cycle behind: one that no
/// outside reference holds, with an object the test allocated. No root or type is named: the
/// whole census is counted after the test (see ``HeapCensus/leaks(in:timeout:)``).
///
/// ```swift
/// @Test(.noLeakedCycles) func checkoutFlow() async throws {
///   let flow = CheckoutFlow()
///   try await flow.run()
/// }
/// ```
///
/// Each test runs in a ``LeakScope`` of its own, so tests that run in parallel are told apart: a
/// test fails only for the cycles it made. What the test's code allocates on its task, in child
/// tasks and in `Task { }`s it makes is the test's; allocations on Dispatch queues, threads and in
/// `Task.detached` belong to no test and fail none. A cycle still held when the test returns (by a
/// task that is still running, a queued block, a global) is not garbage yet and is not reported.
public struct LeakedCyclesTrait: TestTrait, SuiteTrait, TestScoping {
  /// Whether each allocation's call stack is recorded too (the report then gives each cycle's
  /// allocation site).
  public var recordingBacktraces: Bool
  /// How long the count may take.
  public var timeout: Duration

  /// Creates the trait; prefer ``Testing/Trait/noLeakedCycles`` and
  /// ``Testing/Trait/noLeakedCycles(recordingBacktraces:timeout:)``.
  /// - Parameters:
  ///   - recordingBacktraces: also record each allocation's call stack.
  ///   - timeout: how long the count may take.
  public init(recordingBacktraces: Bool = false, timeout: Duration = .seconds(60)) {
    self.recordingBacktraces = recordingBacktraces
    self.timeout = timeout
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
    let scope = LeakScope()
    var thrown: (any Error)?
    do {
      try await scope.run(recordingBacktraces: recordingBacktraces) { try await function() }
    } catch {
      thrown = error
    }
    if let problem = check(scope) {
      Issue.record(Comment(rawValue: problem), sourceLocation: test.sourceLocation)
    }
    if let thrown { throw thrown }
  }

  /// What to say of the leaked cycles `scope` left, or nil when it left none.
  /// - Parameter scope: the test's scope, after the test.
  /// - Returns: the issue's text.
  func check(_ scope: LeakScope) -> String? {
    LeakedCyclesCheck.problem(in: scope, subject: "The test", place: "the test", timeout: timeout)
  }
}

/// The check `.noLeakedCycles` and `assertNoLeakedCycles` make after the code they ran.
enum LeakedCyclesCheck {
  /// What to say of the leaked cycles `scope` left, or of why none could be looked for; nil when
  /// it left none.
  /// - Parameters:
  ///   - scope: the scope, after its work.
  ///   - subject: who left them ("The test").
  ///   - place: where their objects were allocated ("the test").
  ///   - timeout: how long the count may take.
  /// - Returns: the failure's text, or nil.
  static func problem(in scope: LeakScope, subject: String, place: String, timeout: Duration) -> String? {
    let report: LeakReport
    do {
      report = try HeapCensus.leaks(in: scope, timeout: timeout)
    } catch {
      return "No leaked cycles were looked for: \(error)."
    }
    guard !report.isEmpty else { return nil }
    let one = report.leaks.count == 1
    let cycles = one ? "1 leaked cycle" : "\(report.leaks.count) leaked cycles"
    return "\(subject) left \(cycles) behind: nothing outside holds \(one ? "it" : "them"), and "
      + "\(one ? "it holds" : "each holds") an object allocated in \(place).\n\n\(report.cycleSections)"
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
  /// - Returns: the trait.
  public static func noLeakedCycles(recordingBacktraces: Bool, timeout: Duration = .seconds(60)) -> Self {
    LeakedCyclesTrait(recordingBacktraces: recordingBacktraces, timeout: timeout)
  }
}
