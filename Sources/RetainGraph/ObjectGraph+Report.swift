internal import Foundation

extension ObjectGraph {
  /// The human-readable leak trace: for every strong cycle, every reference of its fix plan (the
  /// fewest references to weaken, chosen by ownership idiom: see ``Cycle/fixPlan``), each with
  /// the chain from the root around the loop it breaks, the reference marked `← break this`, and
  /// the fix; then dangling `unowned` references, notes, and whether a limit truncated the walk (in
  /// the first line).
  ///
  /// ```
  /// 1 retain cycle reachable from ViewController (2 objects); 1 reference to weaken
  ///
  /// ViewController
  ///   ↓ presenter
  /// Presenter
  ///   ↓ interactor
  /// Interactor
  ///   ↓ output   ← break this
  /// Presenter (loop closes)
  /// fix: make Interactor.output weak
  /// ```
  ///
  /// - Returns: the report, or `""` when there is no cycle, no dangling reference and no truncation.
  public func report() -> String {
    report(limits: ReportLimits())
  }

  /// The report, shortened to `limits` (the command line's defaults: a 1M-object loop is printed
  /// as its first and last references and a count, not as 2M lines).
  package func report(limits: ReportLimits) -> String {
    ReportWriter(graph: self, limits: limits).text()
  }

  /// The report's first line: how many retain cycles the root reaches, how many objects they
  /// hold, and how many references to weaken to free them all —
  /// `1 retain cycle reachable from ViewController (2 objects); 1 reference to weaken`, or
  /// `no retain cycle reachable from ViewController`.
  public func summary() -> String {
    ReportWriter(graph: self, limits: ReportLimits()).summary()
  }
}

/// How much of a long report ``ObjectGraph/report(limits:)`` prints.
package struct ReportLimits: Sendable, Hashable {
  /// The most references a trace prints; a longer one keeps its first and last references (and the
  /// one to break) and says how many it leaves out. `nil` prints every reference.
  package var maxHops: Int?
  /// The most cycles printed, then a count of the others. `nil` prints every cycle.
  package var maxCycles: Int?

  package init(maxHops: Int? = nil, maxCycles: Int? = nil) {
    self.maxHops = maxHops
    self.maxCycles = maxCycles
  }
}
