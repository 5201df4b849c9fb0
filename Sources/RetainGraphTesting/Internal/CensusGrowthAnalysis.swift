internal import RetainGraph

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

  /// One failing type: its lines, and its newest instance, whose holders the failure names.
  struct Finding {
    var lines: [String]
    var newest: AnyObject?
  }

  /// The types that grew in every judged run or left their allowance.
  func findings() -> [Finding] {
    let judged = 1..<(generations.count - 1)
    var findings: [Finding] = []
    var newest: [String: (count: Int, newest: AnyObject?)]?
    for type in Set(generations.flatMap(\.keys)).sorted() {
      let counts = generations.map { $0[type] ?? 0 }
      let list = counts.map(String.init).joined(separator: ", ")
      let short = type.hasPrefix("(") ? type : CensusRuntime.shortName(type)
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
      // Who holds the newest instance now.
      if newest == nil { newest = census.liveCounts(allocatedIn: windows) }
      findings.append(Finding(lines: [line], newest: newest?[type]?.newest))
    }
    return findings
  }

  /// The failure, given the holder search of each finding's newest instance (nil when it has none).
  func failure(_ findings: [Finding], holders: [CensusHolderSearch?]) -> LeakFailure? {
    guard !findings.isEmpty else { return nil }
    var lines: [String] = []
    for (finding, search) in zip(findings, holders) {
      lines += finding.lines
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
