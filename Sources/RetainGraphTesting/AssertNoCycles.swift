internal import Foundation
public import RetainGraph
internal import RetainGraphKnownCycles

/// Walks the graph from `root` and returns the leak trace when it has a strong retain cycle through
/// an object of yours: a loop among library objects alone (`Cycle.isLibraryOnly`, see
/// `GraphOptions.libraryModules`) is the library's, not a failure.
///
/// A partial answer is never a pass: when the walk did not see the whole graph (a limit cut it, or a
/// part of an object of yours could not be read: `ObjectGraph.isComplete`), it fails as incomplete,
/// saying what was not seen and how to see it (raise `maxNodes`, conform the type to
/// `GraphReflectable`, or use the heap census). Notes in a library's own storage are shown, short,
/// and do not fail it.
///
/// Known cycles: a cycle `.retain-graph-known.json` lists (at the root of the package `filePath` is
/// in, as ``assertNoCycles(_:options:_:fileID:filePath:line:column:)`` finds it, or the file
/// `GraphOptions.knownCyclesFile` names) passes until its entry expires; the message then says
/// which cycles are new, which known, and which expired (with the entry's reason). A file that
/// cannot be read or is malformed fails, naming its line.
///
/// Build your own assertion on it, or use ``assertNoCycles(_:options:_:fileID:filePath:line:column:)``.
/// - Parameters:
///   - root: the object or value to check.
///   - options: limits and filters (e.g. `ignoredReferences: [.property("output", of: "Interactor")]`
///     to accept a known cycle).
///   - filePath: the file whose package's known-cycles file is read (defaults to the caller's).
/// - Returns: the failure (its `description`: the report), or nil when there is no cycle and the walk saw all.
public func checkNoCycles(
  _ root: Any, options: GraphOptions = GraphOptions(), filePath: StaticString = #filePath
) -> LeakCheckFailure? {
  checkNoCycles(
    root, options: options, knownFile: resolvedKnownCyclesFile(options.knownCyclesFile, above: filePath))
}

/// ``checkNoCycles(_:options:filePath:)`` with the known-cycles file (if any) given.
func checkNoCycles(_ root: Any, options: GraphOptions, knownFile: String?) -> LeakCheckFailure? {
  let graph = ObjectGraph(reflecting: root, options: options)
  return cyclesFailure(graph, knownFile: knownFile).map { LeakCheckFailure(description: $0, graphs: [graph]) }
}

/// The known-cycles file a check reads: the one given, or `.retain-graph-known.json` at the root of
/// the package `filePath` (the caller's) is in, when there is one.
func resolvedKnownCyclesFile(_ given: String?, above filePath: StaticString) -> String? {
  given ?? KnownCycles.packageFile(above: "\(filePath)")
}

/// The failure text of `assertNoCycles` for `graph`: its report when it has a cycle of yours (with
/// how to see the rest when the walk was partial), what was not seen when it was incomplete.
///
/// With a known-cycles file (`knownFile`), the cycles it lists pass until their entry expires
/// (`today`, `YYYY-MM-DD`, UTC; default: today): the failure is the report and what the file says
/// of each cycle.
func cyclesFailure(_ graph: ObjectGraph, knownFile: String? = nil, today: String? = nil) -> String? {
  let incomplete = graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle")
  var knownLines: [String] = []
  if let knownFile {
    let cycles = graph.cycles.indices.filter { !graph.cycles[$0].isLibraryOnly }.map {
      (index: $0, signature: graph.cycles[$0].signature)
    }
    let verdict: KnownCycles.Verdict
    switch KnownCycles.verdict(on: cycles, file: knownFile, today: today) {
    case .failure(let error): return error.checkFailureLine + "\n\n" + graph.report()
    case .success(let judged): verdict = judged
    }
    // No cycle of yours: the file had nothing to say (it was not read).
    if !cycles.isEmpty {
      guard verdict.fails else {
        guard let incomplete else { return nil }
        return
          (incomplete.lines + [incomplete.howToSee, "", "In what it saw: \(graph.summary())"] + [""]
          + verdict.lines()).joined(separator: "\n")
      }
      knownLines = [""] + verdict.lines()
    }
  }
  guard graph.cycles.contains(where: { !$0.isLibraryOnly }) else {
    guard let incomplete else { return nil }
    let library = graph.libraryNoteLines(graph.walkNotes)
    return
      (incomplete.lines + [incomplete.howToSee, "", "In what it saw: \(graph.summary())"]
      + (library.isEmpty ? [] : [""] + library)).joined(separator: "\n")
  }
  let report = ([graph.report()] + knownLines).joined(separator: "\n")
  guard let incomplete else { return report }
  return report + "\n\n" + incomplete.howToSee
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when the graph reachable
/// from `root` has a strong retain cycle through an object of yours (a loop among library objects
/// alone, `Cycle.isLibraryOnly`, is not one), or when the walk did not see all of it (see
/// ``checkNoCycles(_:options:filePath:)``); the failure message is the leak trace, and in Swift Testing the
/// graph is attached.
///
/// Known cycles: the cycles `.retain-graph-known.json` lists (at the root of the package `filePath`
/// is in: the nearest directory above it with a `Package.swift`; or the file
/// `GraphOptions.knownCyclesFile` names) pass until their entry expires. A new cycle fails; a
/// cycle whose entry expired fails with the entry's reason. `retain-graph baseline` writes the file.
/// - Parameters:
///   - root: the object or value to check.
///   - options: limits and filters.
///   - message: more context for the failure message.
///   - fileID: the file the failure is reported in (defaults to the caller's).
///   - filePath: the file path the failure is reported in (defaults to the caller's).
///   - line: the line the failure is reported at (defaults to the caller's).
///   - column: the column the failure is reported at (defaults to the caller's).
public func assertNoCycles(
  _ root: @autoclosure () -> Any,
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  let graph = ObjectGraph(reflecting: root(), options: options)
  guard
    let text = cyclesFailure(
      graph, knownFile: resolvedKnownCyclesFile(options.knownCyclesFile, above: filePath))
  else { return }
  let failure = LeakFailure(
    message: text, graphs: [("retain-graph-\(graph.nodes[graph.root].shortTypeName)", graph)])
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}
