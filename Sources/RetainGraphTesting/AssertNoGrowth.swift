public import RetainGraph

/// Runs `scenario` on `root` several times and returns which holders' properties reachable from the
/// root kept collecting objects, with their counts per run and the path to a new instance of each.
///
/// This is generational analysis: after each run the graph reachable from the root is walked and
/// its objects (and closure contexts) counted per type. The first run (warm-up) and the last (work
/// still in flight) are ignored; a type fails when its count grows in every run in between. Types
/// with an allowance fail only when their count leaves the allowed range in one of those runs.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types or holders' properties that may keep a number of survivors, e.g.
///     `.type(ImageCache.self, survivors: 0...3)`, `.property("AppCoordinator.children", survivors: 0...10)`.
///   - options: limits and filters for the walks.
///   - scenario: one run of the scenario; it should return `root` to its starting state.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when nothing grew.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func checkNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  _ scenario: (Root) throws -> Void
) rethrows -> LeakCheckFailure? {
  var analysis = GrowthAnalysis(iterations: iterations, allowances: allowances, options: options)
  if let failure = analysis.tooFewIterations { return LeakCheckFailure(failure) }
  for _ in 0..<iterations {
    try scenario(root)
    analysis.snapshot(root)
  }
  return analysis.failure().map(LeakCheckFailure.init)
}

/// The async twin of ``checkNoGrowth(iterations:of:allowing:options:_:)-(_,_,_,_,(Root)->Void)``,
/// for scenarios that await.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types or holders' properties that may keep a number of survivors.
///   - options: limits and filters for the walks.
///   - isolation: the caller's actor, inferred.
///   - scenario: one run of the scenario; it should return `root` to its starting state.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when nothing grew.
public func checkNoGrowth<Root>(
  iterations: Int = 5,
  of root: Root,
  allowing allowances: [GrowthAllowance] = [],
  options: GraphOptions = GraphOptions(),
  isolation: isolated (any Actor)? = #isolation,
  _ scenario: nonisolated(nonsending) (Root) async throws -> Void
) async rethrows -> LeakCheckFailure? {
  var analysis = GrowthAnalysis(iterations: iterations, allowances: allowances, options: options)
  if let failure = analysis.tooFewIterations { return LeakCheckFailure(failure) }
  for _ in 0..<iterations {
    try await scenario(root)
    analysis.snapshot(root)
  }
  return analysis.failure().map(LeakCheckFailure.init)
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when a type of object
/// reachable from `root` grows in every run of `scenario` (ignoring the first and the last run).
///
/// ```swift
/// assertNoGrowth(iterations: 5, of: feed, allowing: [.type(ImageCache.self, survivors: 0...3)]) { feed in
///   feed.open(); feed.close()
/// }
/// ```
/// The failure names, first and sorted by name, each holder whose stored property collects the
/// growing instances ("EventBus.observers grows by 1 per run: Observer (1, 2, 3, 4, 5 after each
/// run)") with the path from the root to one new instance, like memlab's retainer traces; what those
/// instances hold and grows with them (their closures, objects they own) is folded into that line
/// ("with them: closure #1 in Observer.init() (1 per run)"). Types and properties outside their
/// allowance follow.
/// Fewer than 4 iterations is itself a recorded issue: with the first and the last run ignored,
/// growth must show in at least two runs.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - root: what the scenario runs on, and where the walk starts.
///   - allowances: types or holders' properties that may keep a number of survivors, e.g.
///     `.type(ImageCache.self, survivors: 0...3)`, `.property("AppCoordinator.children", survivors: 0...10)`.
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
