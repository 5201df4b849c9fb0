internal import RetainGraph
internal import RetainGraphKnownCycles

/// Runs `body` and fails the current test (XCTest or Swift Testing) at the caller's line when it
/// leaves a leaked cycle behind: a group of objects that nothing outside holds, one of which `body`
/// allocated. No root or type is named: the heap census counts every live object after `body`
/// returns (in a forked child), and the failure gives each cycle's trace and fix.
///
/// ```swift
/// final class CheckoutTests: XCTestCase {
///   override func invokeTest() { HeapCensus.run { super.invokeTest() } }
///
///   func testCheckout() {
///     assertNoLeakedCycles {
///       let flow = CheckoutFlow()
///       flow.run()
///     }
///   }
/// }
/// ```
///
/// It needs the heap census (`import RetainGraphCensus`, and the test running under it:
/// `HeapCensus.run`, the `.heapCensus` trait, or `HeapCensus.start()`); without it the test fails
/// with a message saying so. Allocations count as `body`'s when they are made on its thread or
/// task, in child tasks, or in `Task { }`s it makes; `Task.detached`, Dispatch queues and threads
/// of their own are outside it. A cycle that something still holds when `body` returns (a task
/// still running, a queued block) is not garbage yet, and is not reported. In Swift Testing, the
/// `.noLeakedCycles` trait does the same for a whole test.
///
/// Known cycles: a leaked cycle whose signature `.retain-graph-known.json` lists (at the root of the
/// package `filePath` is in, as `assertNoCycles` finds it, or the file `knownCyclesFile` names)
/// passes until its entry expires. A new one fails; one whose entry expired fails with the entry's
/// reason; the message says which are which, in `assertNoCycles`'s words.
/// - Parameters:
///   - timeout: how long the count may take.
///   - knownCyclesFile: the known-cycles file to read; nil (the default): the one at the root of
///     the package `filePath` is in, if any.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - body: the code to check.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws (then nothing is checked).
@discardableResult
public func assertNoLeakedCycles<R>(
  timeout: Duration = .seconds(60),
  knownCyclesFile: String? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ body: () throws -> R
) rethrows -> R {
  let (result, problem) = try runCheckingLeakedCycles(
    subject: LeakedCyclesWording.subject, place: LeakedCyclesWording.place, timeout: timeout,
    knownFile: resolvedKnownCyclesFile(knownCyclesFile, above: filePath), body)
  if let problem {
    recordIssue(
      problem, attachments: [], at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }
  return result
}

/// Runs `body` in a leak scope of its own, then counts: what `body` returned, with the failure text
/// for the leaked cycles it left (`subject` left them, allocated in `place`; those the known-cycles
/// file `knownFile` lists, unexpired, pass), or for the missing census (`body` still runs then); nil
/// when there is nothing to say (`missingCensus`: that failure's text, naming the caller).
func runCheckingLeakedCycles<R>(
  subject: String, place: String, missingCensus: String = LeakedCyclesWording.missingCensus,
  timeout: Duration, knownFile: String?, _ body: () throws -> R
) rethrows -> (result: R, problem: String?) {
  guard let census = CensusRegistration.running else {
    return (try body(), missingCensus)
  }
  let (result, scope) = try census.inNewLeakScope(body)
  return (
    result,
    census.leakedCyclesProblem(
      inScope: scope, subject: subject, place: place, timeout: timeout, knownFile: knownFile)
  )
}

/// The async twin of ``assertNoLeakedCycles(timeout:knownCyclesFile:fileID:filePath:line:column:_:)``.
/// - Parameters:
///   - timeout: how long the count may take.
///   - knownCyclesFile: the known-cycles file to read; nil (the default): the one at the root of
///     the package `filePath` is in, if any.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - body: the code to check.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws (then nothing is checked).
@discardableResult
nonisolated(nonsending) public func assertNoLeakedCycles<R>(
  timeout: Duration = .seconds(60),
  knownCyclesFile: String? = nil,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ body: () async throws -> R
) async rethrows -> R {
  let (result, problem) = try await runCheckingLeakedCycles(
    subject: LeakedCyclesWording.subject, place: LeakedCyclesWording.place, timeout: timeout,
    knownFile: resolvedKnownCyclesFile(knownCyclesFile, above: filePath), body)
  if let problem {
    recordIssue(
      problem, attachments: [], at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }
  return result
}

/// The async twin of ``runCheckingLeakedCycles(subject:place:missingCensus:timeout:knownFile:_:)``.
nonisolated(nonsending) func runCheckingLeakedCycles<R>(
  subject: String, place: String, missingCensus: String = LeakedCyclesWording.missingCensus,
  timeout: Duration, knownFile: String?, _ body: () async throws -> R
) async rethrows -> (result: R, problem: String?) {
  guard let census = CensusRegistration.running else {
    return (try await body(), missingCensus)
  }
  let (result, scope) = try await census.inNewLeakScope(recordingBacktraces: false, body)
  return (
    result,
    census.leakedCyclesProblem(
      inScope: scope, subject: subject, place: place, timeout: timeout, knownFile: knownFile)
  )
}

/// Runs `body` and returns the failure ``assertNoLeakedCycles(timeout:knownCyclesFile:fileID:filePath:line:column:_:)-4opal``
/// would report, as a value, or nil when `body` leaves no leaked cycle: the check without the
/// assertion, to build your own on.
///
/// ```swift
/// if let failure = checkNoLeakedCycles({ CheckoutFlow().run() }) {
///   print(failure)   // each leaked cycle's trace and fix
/// }
/// ```
///
/// Without the heap census running for the caller, the failure says how to start it (`body` still
/// runs). Known cycles pass as in the assertion.
/// - Parameters:
///   - timeout: how long the count may take.
///   - knownCyclesFile: the known-cycles file to read; nil (the default): the one at the root of
///     the package `filePath` is in, if any.
///   - filePath: the caller's file path (where the known-cycles file is looked for).
///   - body: the code to check.
/// - Returns: the failure, or nil when the check holds.
/// - Throws: what `body` throws (then nothing is checked).
public func checkNoLeakedCycles(
  timeout: Duration = .seconds(60),
  knownCyclesFile: String? = nil,
  filePath: StaticString = #filePath,
  _ body: () throws -> Void
) rethrows -> LeakCheckFailure? {
  let (_, problem) = try runCheckingLeakedCycles(
    subject: LeakedCyclesWording.checkSubject, place: LeakedCyclesWording.place,
    missingCensus: LeakedCyclesWording.checkMissingCensus, timeout: timeout,
    knownFile: resolvedKnownCyclesFile(knownCyclesFile, above: filePath), body)
  return problem.map { LeakCheckFailure(description: $0, graphs: []) }
}

/// The async twin of `checkNoLeakedCycles(timeout:knownCyclesFile:filePath:_:)`.
/// - Parameters:
///   - timeout: how long the count may take.
///   - knownCyclesFile: the known-cycles file to read; nil (the default): the one at the root of
///     the package `filePath` is in, if any.
///   - filePath: the caller's file path (where the known-cycles file is looked for).
///   - body: the code to check.
/// - Returns: the failure, or nil when the check holds.
/// - Throws: what `body` throws (then nothing is checked).
nonisolated(nonsending) public func checkNoLeakedCycles(
  timeout: Duration = .seconds(60),
  knownCyclesFile: String? = nil,
  filePath: StaticString = #filePath,
  _ body: () async throws -> Void
) async rethrows -> LeakCheckFailure? {
  let (_, problem) = try await runCheckingLeakedCycles(
    subject: LeakedCyclesWording.checkSubject, place: LeakedCyclesWording.place,
    missingCensus: LeakedCyclesWording.checkMissingCensus, timeout: timeout,
    knownFile: resolvedKnownCyclesFile(knownCyclesFile, above: filePath), body)
  return problem.map { LeakCheckFailure(description: $0, graphs: []) }
}

/// How a failure of ``assertNoLeakedCycles(timeout:knownCyclesFile:fileID:filePath:line:column:_:)-4opal``
/// (or of its `check…` twin) names what it checked.
enum LeakedCyclesWording {
  static let subject = "The code checked by assertNoLeakedCycles"
  static let checkSubject = "The code checked by checkNoLeakedCycles"
  static let place = "that code"
  static let missingCensus = CensusRegistration.missingCensusMessage(for: "assertNoLeakedCycles")
  static let checkMissingCensus = CensusRegistration.missingCensusMessage(for: "checkNoLeakedCycles")
}
