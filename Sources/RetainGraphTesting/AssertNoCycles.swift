public import RetainGraph

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
/// Build your own assertion on it, or use ``assertNoCycles(_:options:_:fileID:filePath:line:column:)``.
/// - Parameters:
///   - root: the object or value to check.
///   - options: limits and filters (e.g. `ignoredReferences: [.property("output", of: "Interactor")]`
///     to accept a known cycle).
/// - Returns: the failure (its `description`: the report), or nil when there is no cycle and the walk saw all.
public func checkNoCycles(_ root: Any, options: GraphOptions = GraphOptions()) -> LeakCheckFailure? {
  let graph = ObjectGraph(reflecting: root, options: options)
  return cyclesFailure(graph).map { LeakCheckFailure(description: $0, graphs: [graph]) }
}

/// The failure text of `assertNoCycles` for `graph`: its report when it has a cycle of yours (with
/// how to see the rest when the walk was partial), what was not seen when it was incomplete.
func cyclesFailure(_ graph: ObjectGraph) -> String? {
  let incomplete = graph.incompleteness(graph.walkNotes, mayMiss: "a retain cycle")
  guard graph.cycles.contains(where: { !$0.isLibraryOnly }) else {
    guard let incomplete else { return nil }
    let library = graph.libraryNoteLines(graph.walkNotes)
    return
      (incomplete.lines + [incomplete.howToSee, "", "In what it saw: \(graph.summary())"]
      + (library.isEmpty ? [] : [""] + library)).joined(separator: "\n")
  }
  guard let incomplete else { return graph.report() }
  return graph.report() + "\n\n" + incomplete.howToSee
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when the graph reachable
/// from `root` has a strong retain cycle through an object of yours (a loop among library objects
/// alone, `Cycle.isLibraryOnly`, is not one), or when the walk did not see all of it (see
/// ``checkNoCycles(_:options:)``); the failure message is the leak trace, and in Swift Testing the
/// graph is attached.
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
  guard let text = cyclesFailure(graph) else { return }
  let failure = LeakFailure(
    message: text, graphs: [("retain-graph-\(graph.nodes[graph.root].shortTypeName)", graph)])
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}
