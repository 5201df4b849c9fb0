internal import RetainGraph
internal import RetainGraphProcess

/// The rootless growth check's counts, run after run, and its failure: the live objects the census
/// saw allocated during the runs, counted per type after each run.
struct CensusGrowthAnalysis {
  let census: any CensusProvider
  let allowances: [GrowthAllowance]
  /// The allocation numbers of each run.
  private(set) var windows: [Range<UInt64>] = []
  private var generations: [[String: Int]] = []
  private var allowanceOf: [String: Int] = [:]

  init(census: any CensusProvider, allowances: [GrowthAllowance]) {
    self.census = census
    self.allowances = allowances
  }

  /// The failure for too few iterations, or nil.
  static func tooFewIterations(_ iterations: Int) -> LeakFailure? {
    guard iterations < 4 else { return nil }
    return LeakFailure(
      message: "assertNoGrowth needs at least 4 iterations, got \(iterations): the first and the last run "
        + "are ignored, and growth must show in at least two runs in between. The scenario was not run.")
  }

  /// Counts the live objects allocated in the runs so far, after the run that allocated `window`.
  mutating func count(after window: Range<UInt64>) {
    windows.append(window)
    var counts: [String: Int] = [:]
    // The newest instances are a heap-wide retain (a parallel audit must not take them for a holder
    // of its objects), dropped with this scope, before the next run.
    HeapWideRetains.during {
      for (type, entry) in census.liveCounts(allocatedIn: windows) {
        counts[type] = entry.count
        if allowanceOf[type] == nil, let object = entry.newest,
          let index = allowances.firstIndex(where: { $0.matches(object) })
        {
          allowanceOf[type] = index
        }
      }
    }
    generations.append(counts)
  }

  /// One failing type: its lines, and its newest instance, whose holders the failure names.
  struct Finding {
    var lines: [String]
    var newest: AnyObject?
    /// Whether its instances are one closure's contexts: its line names the closure's function.
    var isClosureContext = false
  }

  /// The types that grew in every judged run or left their allowance.
  func findings() -> [Finding] {
    let judged = 1..<(generations.count - 1)
    var findings: [Finding] = []
    var newest: [String: (count: Int, newest: AnyObject?)]?
    for type in Set(generations.flatMap(\.keys)).sorted() {
      let counts = generations.map { $0[type] ?? 0 }
      let list = counts.map(String.init).joined(separator: ", ")
      // Who holds the newest instance now.
      if newest == nil { newest = census.liveCounts(allocatedIn: windows) }
      let instance = newest?[type]?.newest
      // A closure's contexts are named by the closure's function once its holder search finds it.
      let isClosureContext = type.hasPrefix(CensusRegistration.closureContextPrefix)
      let short =
        isClosureContext ? "(closure context)" : type.hasPrefix("(") ? type : CensusNames.shortName(type)
      let line: String
      if let index = allowanceOf[type] {
        let allowance = allowances[index]
        guard let run = judged.first(where: { !allowance.survivors.contains(counts[$0]) }) else { continue }
        line =
          "  \(short): \(list) after each run; \(counts[run]) after run \(run + 1) is outside its allowance of "
          + "\(allowance.survivors) survivors"
      } else if judged.allSatisfy({ counts[$0] > counts[$0 - 1] }) {
        line = "  \(short): \(list) after each run"
      } else {
        continue
      }
      findings.append(Finding(lines: [line], newest: instance, isClosureContext: isClosureContext))
    }
    return findings
  }

  /// `closure #1 in App.Feed.reload()` → `closure #1 in Feed.reload()`: the module (the first
  /// component of the function's qualified name) left out.
  static func withoutModule(_ name: String) -> String {
    let start = name.ranges(of: " in ").last?.upperBound ?? name.startIndex
    let qualified = name[start...]
    guard let dot = qualified.firstIndex(of: "."),
      !qualified[..<dot].contains(where: { "(<[ ".contains($0) })
    else { return name }
    return String(name[..<start] + qualified[qualified.index(after: dot)...])
  }

  /// The failure, with who holds each finding's newest instance. The findings hold those instances:
  /// a heap-wide retain (``HeapWideRetains``) until the failure is made, so that a parallel test's
  /// audit does not take them for holders of its objects.
  func failureNamingHolders() -> LeakFailure? {
    HeapWideRetains.during {
      let findings = findings()
      return failure(findings, holders: findings.map { $0.newest.map(census.holders(of:)) })
    }
  }

  /// ``failureNamingHolders()`` whose holder searches wait off the cooperative pool.
  func failureNamingHolders(isolation: isolated (any Actor)? = #isolation) async -> LeakFailure? {
    await HeapWideRetains.during { () async -> LeakFailure? in
      let findings = findings()
      var holders: [CensusHolderSearch?] = []
      for finding in findings {
        if let newest = finding.newest {
          holders.append(await census.searchHolders(of: newest))
        } else {
          holders.append(nil)
        }
      }
      return failure(findings, holders: holders)
    }
  }

  /// The failure, given the holder search of each finding's newest instance (nil when it has none).
  func failure(_ findings: [Finding], holders: [CensusHolderSearch?]) -> LeakFailure? {
    guard !findings.isEmpty else { return nil }
    var lines: [String] = []
    for (finding, search) in zip(findings, holders) {
      var findingLines = finding.lines
      let unnamed = "  (closure context)"
      if finding.isClosureContext, let name = search?.targetName, let first = findingLines.first,
        first.hasPrefix(unnamed)
      {
        findingLines[0] =
          "  (closure context of \(Self.withoutModule(name)))"
          + first.dropFirst(unnamed.count)
      }
      lines += findingLines
      guard let search else { continue }
      if let path = search.holderPath {
        lines.append("    the newest instance is retained by \(path)")
      } else if let failure = search.failure {
        lines.append("    the newest instance: \(failure)")
      } else {
        lines.append("    the newest instance: no holder the census sees")
      }
      if let allocation = search.allocation { lines.append("    \(allocation)") }
    }
    let header =
      "\(Explanation.count(findings.count, "type")) of object kept growing across the process over "
      + "\(generations.count) runs of the scenario (runs 2–\(generations.count - 1) judged; the first and the "
      + "last are ignored; objects allocated during the runs, as the heap census sees them):"
    return LeakFailure(message: ([header] + lines).joined(separator: "\n"))
  }
}
