internal import RetainGraph
internal import RetainGraphProcess

/// Runs `scenario` several times under the heap census and returns which types of object kept
/// growing across the whole process, with their counts per run and who retains a new instance.
///
/// Rootless generational analysis: after each run, the live objects allocated during the runs are
/// counted per type (everything the census sees, not only what one root reaches). The first run
/// (warm-up) and the last (work still in flight) are ignored; a type fails when its count grows in
/// every run in between, or leaves its allowance.
///
/// Needs the heap census: `import RetainGraphCensus` in the test target and run the test under it
/// (the `.heapCensus` trait, `HeapCensus.run { … }` or `HeapCensus.start()`). Without it, the
/// failure text says so. Census checks of parallel tests take turns; objects that other tests
/// running at the same time allocate during the runs are counted too.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - allowances: types that may keep a number of survivors.
///   - scenario: one run of the scenario; it should return the program to its starting state.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when nothing grew.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func checkNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  _ scenario: () throws -> Void
) rethrows -> LeakCheckFailure? {
  try censusGrowthFailure(iterations: iterations, allowances: allowances, scenario).map(LeakCheckFailure.init)
}

/// Fails the current test (XCTest or Swift Testing) at the caller's line when a type of object
/// grows, process-wide, in every run of `scenario` (ignoring the first and the last run).
///
/// ```swift
/// @Test(.heapCensus) func reloadingDoesNotLeak() {
///   assertNoGrowth(iterations: 5) { feed.reload() }
/// }
/// ```
/// Each growing type is listed with its count after every run and who retains a new instance
/// (`retained by EventLog.shared.items[3]`). Needs the heap census (see
/// ``checkNoGrowth(iterations:allowing:_:)``).
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - allowances: types that may keep a number of survivors.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - scenario: one run of the scenario; it should return the program to its starting state.
// Disfavoured so that an `await`ed call in async code picks the async twin.
@_disfavoredOverload
public func assertNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ scenario: () throws -> Void
) rethrows {
  guard let failure = try censusGrowthFailure(iterations: iterations, allowances: allowances, scenario) else {
    return
  }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

/// The `async` form of ``checkNoGrowth(iterations:allowing:_:)``, for scenarios that await (a
/// request handler, an actor's method): it waits for its turn among census checks and for its
/// holder searches without holding a thread of the cooperative pool.
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - allowances: types that may keep a number of survivors.
///   - isolation: the caller's actor, inferred.
///   - scenario: one run of the scenario; it should return the program to its starting state.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil when nothing grew.
public func checkNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  isolation: isolated (any Actor)? = #isolation,
  _ scenario: nonisolated(nonsending) () async throws -> Void
) async rethrows -> LeakCheckFailure? {
  try await censusGrowthFailure(
    iterations: iterations, allowances: allowances, isolation: isolation, scenario
  ).map(LeakCheckFailure.init)
}

/// The `async` form of ``assertNoGrowth(iterations:allowing:_:fileID:filePath:line:column:_:)``, for
/// scenarios that await.
///
/// ```swift
/// @Test(.heapCensus) func handlingRequestsDoesNotLeak() async {
///   await assertNoGrowth(iterations: 5) { _ = await server.handle(request) }
/// }
/// ```
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - allowances: types that may keep a number of survivors.
///   - message: more context for the failure message.
///   - isolation: the caller's actor, inferred.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - scenario: one run of the scenario; it should return the program to its starting state.
public func assertNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  _ message: @autoclosure () -> String = "",
  isolation: isolated (any Actor)? = #isolation,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ scenario: nonisolated(nonsending) () async throws -> Void
) async rethrows {
  guard
    let failure = try await censusGrowthFailure(
      iterations: iterations, allowances: allowances, isolation: isolation, scenario)
  else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

private func censusGrowthFailure(
  iterations: Int, allowances: [GrowthAllowance], _ scenario: () throws -> Void
) rethrows -> LeakFailure? {
  guard let census = CensusRegistration.running else {
    return LeakFailure(message: CensusRegistration.missingCensusMessage(for: "assertNoGrowth without a root"))
  }
  if let failure = CensusGrowthAnalysis.tooFewIterations(iterations) { return failure }
  return try census.exclusively { () throws -> LeakFailure? in
    var analysis = CensusGrowthAnalysis(census: census, allowances: allowances)
    for _ in 0..<iterations {
      let start = census.mark()
      try scenario()
      analysis.count(after: start..<census.mark())
    }
    return analysis.failureNamingHolders()
  }
}

private func censusGrowthFailure(
  iterations: Int, allowances: [GrowthAllowance], isolation: isolated (any Actor)?,
  _ scenario: nonisolated(nonsending) () async throws -> Void
) async rethrows -> LeakFailure? {
  guard let census = CensusRegistration.running else {
    return LeakFailure(message: CensusRegistration.missingCensusMessage(for: "assertNoGrowth without a root"))
  }
  if let failure = CensusGrowthAnalysis.tooFewIterations(iterations) { return failure }
  // Waits for its turn suspended; the holder searches wait for their forked children off the pool.
  return try await CensusCheckTurns.shared.exclusively { () async throws -> LeakFailure? in
    var analysis = CensusGrowthAnalysis(census: census, allowances: allowances)
    for _ in 0..<iterations {
      let start = census.mark()
      try await scenario()
      analysis.count(after: start..<census.mark())
    }
    return await analysis.failureNamingHolders()
  }
}

/// Process-wide: fails when more than `limit` instances of `type` are alive among the objects the
/// heap census saw, listing who retains the first few.
/// - Parameters:
///   - type: the type to count; subclasses and conforming classes count too.
///   - limit: how many instances are allowed.
/// - Returns: the failure (its `description` is the text the `assert…` twin reports), or nil.
public func checkInstances<T>(of type: T.Type, atMost limit: Int) -> LeakCheckFailure? {
  censusInstancesFailure(of: type, atMost: limit).map(LeakCheckFailure.init)
}

/// Fails the current test at the caller's line when more than `limit` instances of `type` are
/// alive in the whole process (as the heap census sees them: objects allocated while it ran).
///
/// ```swift
/// @Test(.heapCensus) func oneDecoder() {
///   gallery.show()
///   assertInstances(of: ImageDecoder.self, atMost: 1)
/// }
/// ```
/// - Parameters:
///   - type: the type to count; subclasses and conforming classes count too.
///   - limit: how many instances are allowed.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
public func assertInstances<T>(
  of type: T.Type,
  atMost limit: Int,
  _ message: @autoclosure () -> String = "",
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column
) {
  guard let failure = censusInstancesFailure(of: type, atMost: limit) else { return }
  failure.record(
    at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column), context: message())
}

private func censusInstancesFailure<T>(of type: T.Type, atMost limit: Int) -> LeakFailure? {
  guard let census = CensusRegistration.running else {
    return LeakFailure(
      message: CensusRegistration.missingCensusMessage(for: "assertInstances without a root"))
  }
  return census.exclusively {
    let objects = census.liveObjects(of: type)
    guard objects.count > limit else { return nil }
    var lines = [
      "\(Explanation.count(objects.count, "instance")) of \(T.self) alive in the process; at most \(limit) "
        + "allowed. Retained by:"
    ]
    let shown = 5
    for object in objects.prefix(shown) {
      let search = census.holders(of: object)
      lines.append("  " + (search.holderPath ?? search.failure ?? "no holder the census sees"))
    }
    if objects.count > shown { lines.append("  … and \(objects.count - shown) more") }
    return LeakFailure(message: lines.joined(separator: "\n"))
  }
}
