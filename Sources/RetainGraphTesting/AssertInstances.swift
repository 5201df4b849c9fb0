public import RetainGraph

/// Counts the instances of `type` reachable from `root` and returns a failure when there are more
/// than `limit`: a per-type budget that needs no counting code in `init`.
/// - Parameters:
///   - type: the type to count; subclasses and conforming classes count too.
///   - limit: how many instances are allowed.
///   - root: where the walk starts.
///   - options: limits and filters for the walk.
/// - Returns: the failure (its `description`: the count, and the path from the root to each instance), or nil.
public func checkInstances<T>(
  of type: T.Type, atMost limit: Int, in root: Any, options: GraphOptions = GraphOptions()
) -> LeakCheckFailure? {
  instancesFailure(of: type, atMost: limit, in: root, options: options).map(LeakCheckFailure.init)
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when more than `limit`
/// instances of `type` are reachable from `root`.
///
/// ```swift
/// assertInstances(of: ImageDecoder.self, atMost: 1, in: gallery)
/// ```
/// - Parameters:
///   - type: the type to count; subclasses and conforming classes count too.
///   - limit: how many instances are allowed.
///   - root: where the walk starts.
///   - options: limits and filters for the walk.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
public func assertInstances<T>(
  of type: T.Type,
  atMost limit: Int,
  in root: @autoclosure () -> Any,
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  guard let failure = instancesFailure(of: type, atMost: limit, in: root(), options: options) else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

@inline(never)
private func instancesFailure<T>(
  of type: T.Type, atMost limit: Int, in root: Any, options: GraphOptions
) -> LeakFailure? {
  let (graph, objects) = ObjectGraph.walk(root, options: options)
  let found = objects.indices.filter { objects[$0].map { $0 is T } ?? false }
  guard found.count > limit else { return nil }
  let rootName = graph.nodes[graph.root].shortTypeName
  var lines = [
    "\(Explanation.count(found.count, "instance")) of \(T.self) reachable from \(rootName); at most \(limit) "
      + "allowed. Reached by:"
  ]
  let shown = 5
  for id in found.prefix(shown) {
    lines += Explanation.lines(for: graph.path(to: id) ?? [], in: graph, indent: "  ")
  }
  if found.count > shown { lines.append("  … and \(found.count - shown) more") }
  let report = graph.report()
  if !report.isEmpty { lines += ["", report] }
  return LeakFailure(message: lines.joined(separator: "\n"), graphs: [("retain-graph-\(rootName)", graph)])
}
