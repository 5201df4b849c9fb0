internal import RetainGraph
internal import RetainGraphKnownCycles
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
    let scope = LeakScope()
    var thrown: (any Error)?
    do {
      try await scope.run(recordingBacktraces: recordingBacktraces) { try await function() }
    } catch {
      thrown = error
    }
    let knownFile = knownCyclesFile ?? KnownCycles.packageFile(above: test.sourceLocation.filePath)
    if let problem = check(scope, knownFile: knownFile) {
      Issue.record(Comment(rawValue: problem), sourceLocation: test.sourceLocation)
    }
    if let thrown { throw thrown }
  }

  /// What to say of the leaked cycles `scope` left, or nil when it left none (or the known-cycles
  /// file at `knownFile` lists each, unexpired).
  /// - Parameters:
  ///   - scope: the test's scope, after the test.
  ///   - knownFile: the known-cycles file, if any.
  /// - Returns: the issue's text.
  func check(_ scope: LeakScope, knownFile: String?) -> String? {
    LeakedCyclesCheck.problem(
      in: scope, subject: "The test", place: "the test", timeout: timeout, knownFile: knownFile)
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
  ///   - knownFile: the known-cycles file, if any: a cycle it lists passes until its entry expires.
  /// - Returns: the failure's text, or nil.
  static func problem(
    in scope: LeakScope, subject: String, place: String, timeout: Duration, knownFile: String?
  ) -> String? {
    let report: LeakReport
    do {
      report = try HeapCensus.leaks(in: scope, timeout: timeout)
    } catch {
      return "No leaked cycles were looked for: \(error)."
    }
    let one = report.cycleCount == 1
    var cycles = one ? "1 leaked cycle" : "\(LeakReport.number(report.cycleCount)) leaked cycles"
    if report.isGrouped {
      cycles += report.leaks.count == 1 ? " of 1 shape" : " of \(report.leaks.count) shapes"
    }
    let text =
      "\(subject) left \(cycles) behind: nothing outside holds \(one ? "it" : "them"), and "
      + "\(one ? "it holds" : "each holds") an object allocated in \(place).\n\n\(report.cycleSections)"
    guard let knownFile else { return report.isEmpty ? nil : text }
    switch KnownCycles.verdict(on: report.signatures, file: knownFile) {
    case .failure(let error): return error.checkFailureLine + "\n\n" + text
    case .success(let verdict):
      guard verdict.fails else { return nil }
      return ([text, ""] + verdict.lines(noun: "leaked cycle")).joined(separator: "\n")
    }
  }
}

extension LeakReport {
  /// Each cycle's number (from 0, as the report numbers it less one) and signature, for a
  /// known-cycles file's verdict.
  var signatures: [(index: Int, signature: CycleSignature)] {
    leaks.enumerated().map { (index: $0.offset, signature: $0.element.signature) }
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
