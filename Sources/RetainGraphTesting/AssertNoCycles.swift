public import RetainGraph

/// Walks the graph from `root` and returns the leak trace when it has a strong retain cycle through
/// an object of yours: a loop among library objects alone (`Cycle.isLibraryOnly`, see
/// `GraphOptions.libraryModules`) is the library's, not a failure.
///
/// Build your own assertion on it, or use ``assertNoCycles(_:options:_:fileID:filePath:line:column:)``.
/// - Parameters:
///   - root: the object or value to check.
///   - options: limits and filters (e.g. `ignoredLabels: ["output"]` to accept a known cycle).
/// - Returns: the failure text (the report), or nil when there is no cycle.
public func verifyNoCycles(_ root: Any, options: GraphOptions = GraphOptions()) -> String? {
  let graph = ObjectGraph(reflecting: root, options: options)
  guard graph.cycles.contains(where: { !$0.isLibraryOnly }) else { return nil }
  return graph.report()
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when the graph reachable
/// from `root` has a strong retain cycle through an object of yours (a loop among library objects
/// alone, `Cycle.isLibraryOnly`, is not one); the failure message is the leak trace, and in Swift
/// Testing the graph is attached.
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
  guard graph.cycles.contains(where: { !$0.isLibraryOnly }) else { return }
  let failure = LeakFailure(
    message: graph.report(), graphs: [("retain-graph-\(graph.nodes[graph.root].shortTypeName)", graph)])
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}
