public import RetainGraph

/// Runs `scenario` on `root` several times and returns which types of objects reachable from the
/// root kept growing, with their counts per run and the path to a new instance of each.
///
/// This is generational analysis: after each run the graph reachable from the root is walked and
/// its objects (and closure contexts) counted per type. The first run (warm-up) and the last (work
/// still in flight) are ignored; a type fails when its count grows in every run in between. Types
/// with an allowance fail only when their count leaves the allowed range in one of those runs.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types that may keep a number of survivors, e.g. `.type(ImageCache.self, survivors: 0...3)`.
///   - options: limits and filters for the walks.
///   - scenario: one run of the scenario; it should return `root` to its starting state.
/// - Returns: the failure text, or nil when nothing grew.
public func verifyNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  _ scenario: (Root) throws -> Void
) rethrows -> String? {
  var analysis = GrowthAnalysis(iterations: iterations, allowances: allowances, options: options)
  if let failure = analysis.tooFewIterations { return failure.fullText }
  for _ in 0..<iterations {
    try scenario(root)
    analysis.snapshot(root)
  }
  return analysis.failure()?.fullText
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when a type of object
/// reachable from `root` grows in every run of `scenario` (ignoring the first and the last run).
///
/// ```swift
/// assertNoGrowth(iterations: 5, of: feed, allowing: [.type(ImageCache.self, survivors: 0...3)]) { feed in
///   feed.open(); feed.close()
/// }
/// ```
/// The failure lists each growing type with its count after every run and the path from the root
/// to one new instance, like objgraph's `show_growth` and memlab's retainer traces.
/// Fewer than 4 iterations is itself a recorded issue: with the first and the last run ignored,
/// growth must show in at least two runs.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types that may keep a number of survivors, e.g. `.type(ImageCache.self, survivors: 0...3)`.
///   - options: limits and filters for the walks.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - scenario: one run of the scenario; it should return `root` to its starting state.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func assertNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ scenario: (Root) throws -> Void
) rethrows {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  var analysis = GrowthAnalysis(iterations: iterations, allowances: allowances, options: options)
  if let failure = analysis.tooFewIterations {
    failure.record(at: site, context: message())
    return
  }
  for _ in 0..<iterations {
    try scenario(root)
    analysis.snapshot(root)
  }
  analysis.failure()?.record(at: site, context: message())
}

/// The async twin of `assertNoGrowth`, for scenarios that await.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types that may keep a number of survivors.
///   - options: limits and filters for the walks.
///   - message: more context for the failure message.
///   - isolation: the caller's actor, inferred.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - scenario: one run of the scenario; it should return `root` to its starting state.
public func assertNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  _ message: @autoclosure () -> String = "",
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ scenario: nonisolated(nonsending) (Root) async throws -> Void
) async rethrows {
  let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  var analysis = GrowthAnalysis(iterations: iterations, allowances: allowances, options: options)
  if let failure = analysis.tooFewIterations {
    failure.record(at: site, context: message())
    return
  }
  for _ in 0..<iterations {
    try await scenario(root)
    analysis.snapshot(root)
  }
  analysis.failure()?.record(at: site, context: message())
}

/// Counts per type after each run of a scenario, and what is new in each run.
struct GrowthAnalysis {
  /// One snapshot: the graph after a run and its counts.
  private struct Generation {
    var graph: ObjectGraph
    var counts: [String: Int]
    /// Per type, a node of that type that was not there after the run before (or the last one
    /// found, for closure contexts, which cannot be told apart).
    var newInstance: [String: Node.ID]
    var probes: [ObjectIdentifier: WeakProbe]
  }

  let iterations: Int
  let allowances: [GrowthAllowance]
  let options: GraphOptions
  private var generations: [Generation] = []
  /// The allowance index that applies to each type name, found from the objects walked.
  private var allowanceOf: [String: Int] = [:]

  init(iterations: Int, allowances: [GrowthAllowance], options: GraphOptions) {
    self.iterations = iterations
    self.allowances = allowances
    self.options = options
  }

  var tooFewIterations: LeakFailure? {
    guard iterations < 4 else { return nil }
    return LeakFailure(
      message: "assertNoGrowth needs at least 4 iterations, got \(iterations): the first and the last run "
        + "are ignored, and growth must show in at least two runs in between. The scenario was not run.")
  }

  /// Walks the graph from `root` after a run and counts its objects per type.
  @inline(never)
  mutating func snapshot<Root>(_ root: Root) {
    let (graph, objects) = ObjectGraph.walk(root, options: options)
    let previous = generations.last?.probes ?? [:]
    var generation = Generation(graph: graph, counts: [:], newInstance: [:], probes: [:])
    for node in graph.nodes where node.kind != .value {
      generation.counts[node.typeName, default: 0] += 1
      if allowanceOf[node.typeName] == nil,
        let index = allowances.firstIndex(where: { $0.matches(node, object: objects[node.id]) })
      {
        allowanceOf[node.typeName] = index
      }
      guard let object = objects[node.id] else {
        generation.newInstance[node.typeName] = node.id
        continue
      }
      let identity = ObjectIdentifier(object)
      generation.probes[identity] = WeakProbe(object)
      if previous[identity]?.object !== object, generation.newInstance[node.typeName] == nil {
        generation.newInstance[node.typeName] = node.id
      }
    }
    generations.append(generation)
  }

  /// The failure, or nil when no type grew (or left its allowance) in the judged runs.
  func failure() -> LeakFailure? {
    guard generations.count >= 4 else { return nil }
    let judged = 1..<(generations.count - 1)
    let types = Set(generations.flatMap(\.counts.keys)).sorted()
    var growing: [(type: String, counts: [Int])] = []
    var overAllowance: [(type: String, counts: [Int], allowance: GrowthAllowance, run: Int)] = []
    for type in types {
      let counts = generations.map { $0.counts[type] ?? 0 }
      if let index = allowanceOf[type] {
        let allowance = allowances[index]
        if let run = judged.first(where: { !allowance.survivors.contains(counts[$0]) }) {
          overAllowance.append((type, counts, allowance, run))
        }
      } else if judged.allSatisfy({ counts[$0] > counts[$0 - 1] }) {
        growing.append((type, counts))
      }
    }
    guard !growing.isEmpty || !overAllowance.isEmpty else { return nil }
    return describe(growing: growing, overAllowance: overAllowance)
  }

  private func describe(
    growing: [(type: String, counts: [Int])],
    overAllowance: [(type: String, counts: [Int], allowance: GrowthAllowance, run: Int)]
  ) -> LeakFailure {
    let last = generations.count - 2  // the last judged run
    let graph = generations[last].graph
    let rootName = graph.nodes[graph.root].shortTypeName
    let total = growing.count + overAllowance.count
    var lines = [
      "\(Explanation.count(total, "type")) of object reachable from \(rootName) kept growing over "
        + "\(generations.count) runs of the scenario (runs 2–\(generations.count - 1) judged; the first and "
        + "the last are ignored):"
    ]
    for (type, counts) in growing {
      lines.append(
        "  \(short(type, in: graph)): \(counts.map(String.init).joined(separator: ", ")) after each run")
      if let id = generations[last].newInstance[type], let path = graph.path(to: id) {
        lines.append("    a new instance after run \(last + 1), reached by:")
        lines += Explanation.lines(for: path, in: graph, indent: "      ")
      }
    }
    for (type, counts, allowance, run) in overAllowance {
      lines.append(
        "  \(short(type, in: graph)): \(counts.map(String.init).joined(separator: ", ")) after each run; "
          + "\(counts[run]) after run \(run + 1) is outside its allowance of \(allowance.survivors) survivors"
      )
      if let id = generations[run].newInstance[type], let path = generations[run].graph.path(to: id) {
        lines.append("    a new instance after run \(run + 1), reached by:")
        lines += Explanation.lines(for: path, in: generations[run].graph, indent: "      ")
      }
    }
    let report = graph.report()
    if !report.isEmpty { lines += ["", "The graph after run \(last + 1) also has:", report] }
    return LeakFailure(
      message: lines.joined(separator: "\n"), graphs: [("retain-graph-\(rootName)-run\(last + 1)", graph)])
  }

  private func short(_ typeName: String, in graph: ObjectGraph) -> String {
    graph.nodes.first { $0.typeName == typeName }?.shortTypeName ?? typeName
  }
}
