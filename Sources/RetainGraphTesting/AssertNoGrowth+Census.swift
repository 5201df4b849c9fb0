internal import RetainGraph

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
/// - Returns: the failure text, or nil when nothing grew.
public func verifyNoGrowth(
  iterations: Int = 5,
  allowing allowances: [GrowthAllowance] = [],
  _ scenario: () throws -> Void
) rethrows -> String? {
  try censusGrowthFailure(iterations: iterations, allowances: allowances, scenario)?.fullText
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
/// ``verifyNoGrowth(iterations:allowing:_:)``).
/// - Parameters:
///   - iterations: how many times to run the scenario; at least 4 (default 5).
///   - allowances: types that may keep a number of survivors.
///   - message: more context for the failure message.
///   - fileID: the caller's file ID.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - scenario: one run of the scenario; it should return the program to its starting state.
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

private func censusGrowthFailure(
  iterations: Int, allowances: [GrowthAllowance], _ scenario: () throws -> Void
) rethrows -> LeakFailure? {
  guard let census = CensusRegistration.running else {
    return LeakFailure(message: CensusRegistration.missingCensusMessage(for: "assertNoGrowth without a root"))
  }
  guard iterations >= 4 else {
    return LeakFailure(
      message: "assertNoGrowth needs at least 4 iterations, got \(iterations): the first and the last run "
        + "are ignored, and growth must show in at least two runs in between. The scenario was not run.")
  }
  return try census.exclusively { () throws -> LeakFailure? in
    var windows: [Range<UInt64>] = []
    var generations: [[String: Int]] = []
    var allowanceOf: [String: Int] = [:]
    for _ in 0..<iterations {
      let start = census.mark()
      try scenario()
      windows.append(start..<census.mark())
      var counts: [String: Int] = [:]
      // The newest instances are dropped with this scope, before the next run.
      for (type, entry) in census.liveCounts(allocatedIn: windows) {
        counts[type] = entry.count
        if allowanceOf[type] == nil, let object = entry.newest,
          let index = allowances.firstIndex(where: { $0.matches(object) })
        {
          allowanceOf[type] = index
        }
      }
      generations.append(counts)
    }
    return describeCensusGrowth(
      generations, allowances: allowances, allowanceOf: allowanceOf, census: census, windows: windows)
  }
}

private func describeCensusGrowth(
  _ generations: [[String: Int]], allowances: [GrowthAllowance], allowanceOf: [String: Int],
  census: any CensusProvider, windows: [Range<UInt64>]
) -> LeakFailure? {
  let judged = 1..<(generations.count - 1)
  var lines: [String] = []
  var failing = 0
  for type in Set(generations.flatMap(\.keys)).sorted() {
    let counts = generations.map { $0[type] ?? 0 }
    let list = counts.map(String.init).joined(separator: ", ")
    let short = type.hasPrefix("(") ? type : CensusRuntime.shortName(type)
    if let index = allowanceOf[type] {
      let allowance = allowances[index]
      guard let run = judged.first(where: { !allowance.survivors.contains(counts[$0]) }) else { continue }
      lines.append(
        "  \(short): \(list) after each run; \(counts[run]) after run \(run + 1) is outside its allowance of "
          + "\(allowance.survivors) survivors")
    } else if judged.allSatisfy({ counts[$0] > counts[$0 - 1] }) {
      lines.append("  \(short): \(list) after each run")
    } else {
      continue
    }
    failing += 1
    // Who holds the newest instance now.
    if let newest = census.liveCounts(allocatedIn: windows)[type]?.newest {
      let search = census.holders(of: newest)
      if let path = search.holderPath {
        lines.append("    the newest instance is retained by \(path)")
      } else if let failure = search.failure {
        lines.append("    the newest instance: \(failure)")
      } else {
        lines.append("    the newest instance: no holder the census sees")
      }
      if let allocation = search.allocation { lines.append("    \(allocation)") }
    }
  }
  guard failing > 0 else { return nil }
  let header =
    "\(Explanation.count(failing, "type")) of object kept growing across the process over "
    + "\(generations.count) runs of the scenario (runs 2–\(generations.count - 1) judged; the first and the "
    + "last are ignored; objects allocated during the runs, as the heap census sees them):"
  return LeakFailure(message: ([header] + lines).joined(separator: "\n"))
}

/// Process-wide: fails when more than `limit` instances of `type` are alive among the objects the
/// heap census saw, listing who retains the first few.
/// - Parameters:
///   - type: the type to count; subclasses and conforming classes count too.
///   - limit: how many instances are allowed.
/// - Returns: the failure text, or nil.
public func verifyInstances<T>(of type: T.Type, atMost limit: Int) -> String? {
  censusInstancesFailure(of: type, atMost: limit)?.fullText
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
