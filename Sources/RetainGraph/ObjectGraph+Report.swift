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
    guard !cycles.isEmpty || !danglingReferences.isEmpty || isTruncated else { return "" }
    var lines: [String] = []
    if isTruncated {
      lines.append(
        "warning: a limit stopped the walk at \(nodeCount) node\(nodeCount == 1 ? "" : "s"); this graph is partial and may miss cycles"
      )
    }
    lines.append(summary())
    for (index, cycle) in cycles.enumerated().prefix(limits.maxCycles ?? cycles.count) {
      lines.append("")
      let fixes = cycle.referencesToWeaken
      let shown = cycle.fixPlan.count < fixes ? " (the first \(cycle.fixPlan.count) shown)" : ""
      if cycles.count > 1 {
        let weaken = fixes > 1 ? "; \(Self.count(fixes, "reference")) to weaken" : ""
        lines.append("cycle \(index + 1) of \(cycles.count) (\(memberSummary(cycle)))\(weaken)\(shown):")
      } else if fixes > 1 {
        lines.append("\(Self.count(fixes, "reference")) to weaken, one loop each\(shown):")
      }
      for (number, fix) in cycle.fixPlan.enumerated() {
        if number > 0 { lines.append("") }
        let (trace, reachable) = traceLines(of: fix, maxHops: limits.maxHops)
        lines += trace
        if !reachable { lines.append("(not reachable from the root)") }
        lines.append(fixes > 1 ? "fix \(number + 1) of \(fixes): \(fix.fix)" : "fix: \(fix.fix)")
      }
      if !cycle.libraryLoopMembers.isEmpty {
        if !cycle.fixPlan.isEmpty { lines.append("") }
        lines.append(libraryLoopLine(cycle.libraryLoopMembers))
      }
    }
    if let maxCycles = limits.maxCycles, cycles.count > maxCycles {
      lines += ["", "… \(Self.count(cycles.count - maxCycles, "more cycle")) not shown"]
    }
    if !danglingReferences.isEmpty {
      lines.append("")
      for dangling in danglingReferences {
        lines.append(
          "dangling unowned reference: \(storage.shortTypeName(dangling.holder)).\(dangling.label) points to an "
            + "object that was already deinitialized; reading it will crash")
      }
    }
    if !notes.isEmpty {
      lines.append("")
      lines += notes.map { "note: \($0)" }
    }
    return lines.joined(separator: "\n")
  }

  /// The report's first line: how many retain cycles the root reaches, how many objects they
  /// hold, and how many references to weaken to free them all —
  /// `1 retain cycle reachable from ViewController (2 objects); 1 reference to weaken`, or
  /// `no retain cycle reachable from ViewController`.
  public func summary() -> String {
    let rootName = storage.shortTypeName(root)
    guard !cycles.isEmpty else { return "no retain cycle reachable from \(rootName)" }
    let objects = Set(cycles.flatMap(\.members)).count
    let noun = cycles.count == 1 ? "retain cycle" : "retain cycles"
    let fixes = cycles.reduce(0) { $0 + $1.referencesToWeaken }
    return "\(cycles.count) \(noun) reachable from \(rootName) (\(Self.count(objects, "object"))); "
      + "\(Self.count(fixes, "reference")) to weaken"
  }

  /// `left to OpenCombine: 2 of its objects still hold each other (PassthroughSubject<Int, Never>,
  /// Conduit<…>): its own loops, not references of yours`.
  private func libraryLoopLine(_ members: [Node.ID]) -> String {
    let modules = Set(members.compactMap { TypeNames.module(ofNodeNamed: storage.typeName($0)) }).sorted()
    let owner = modules.isEmpty ? "the libraries" : modules.joined(separator: " and ")
    let names = members.prefix(3).map { displayName($0) }.joined(separator: ", ")
    let more = members.count > 3 ? ", +\(members.count - 3) more" : ""
    let their = modules.count > 1 ? "their" : "its"
    let verb = members.count == 1 ? "still holds itself" : "still hold each other"
    let objects = members.count == 1 ? "1 of \(their) objects" : "\(members.count) of \(their) objects"
    return "left to \(owner): \(objects) \(verb) (\(names)\(more)): "
      + "\(their) own \(members.count == 1 ? "loop" : "loops"), not references of yours"
  }

  private static func count(_ number: Int, _ noun: String) -> String {
    "\(number) \(noun)\(number == 1 ? "" : "s")"
  }

  private func memberSummary(_ cycle: Cycle) -> String {
    let names = cycle.members.prefix(4).map { displayName($0) }
    let more = cycle.members.count > 4 ? ", +\(cycle.members.count - 4) more" : ""
    return "\(cycle.members.count) objects: \(names.joined(separator: ", "))\(more)"
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
