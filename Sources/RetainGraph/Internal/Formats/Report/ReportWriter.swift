internal import RetainGraphRuntime

/// One group of alike cycles as the report prints it: its first cycle, how many cycles it has, its
/// heading (nil for a graph of one cycle whose plan is one edit), how many edits the plan is and the
/// line for the library's own loops left among its members.
package struct ReportSection {
  package let cycle: Cycle
  package let cycleCount: Int
  package let heading: String?
  package let edits: Int
  package let libraryLoop: String?
}

/// Writes ``ObjectGraph/report()``: the leak trace of every cycle's fix plan, dangling `unowned`
/// references, notes, shortened to ``ReportLimits``.
struct ReportWriter {
  let graph: ObjectGraph
  let limits: ReportLimits

  func text() -> String {
    let isComplete = graph.isComplete
    guard !graph.cycles.isEmpty || !graph.danglingReferences.isEmpty || !isComplete else { return "" }
    var lines: [String] = []
    if graph.isTruncated {
      lines.append(
        "warning: a limit stopped the walk at \(graph.nodeCount) node\(graph.nodeCount == 1 ? "" : "s"); this graph is partial and may miss cycles"
      )
    } else if !isComplete {
      lines.append(
        "warning: the walk could not read part of your objects (notes below); this graph may miss cycles")
    }
    lines.append(summary())
    let groups = Self.alikeGroups(graph.cycles)
    for section in sections(groups.prefix(limits.maxCycles ?? groups.count)) {
      let cycle = section.cycle
      lines.append("")
      if let heading = section.heading { lines.append(heading) }
      let fixes = section.edits
      let alike = section.cycleCount > 1 ? ", one edit for all \(section.cycleCount) cycles" : ""
      for (number, fix) in cycle.fixPlan.enumerated() {
        if number > 0 { lines.append("") }
        let (trace, reachable) = graph.traceLines(of: fix, maxHops: limits.maxHops)
        lines += trace
        if !reachable { lines.append("(not reachable from the root)") }
        // Where to make the edit, when the debug information says: `— Sources/App/Interactor.swift:14`.
        let place = fix.location.map { " — \($0.file):\($0.line)" } ?? ""
        lines.append(
          (fixes > 1 ? "fix \(number + 1) of \(fixes): \(fix.fix)" : "fix: \(fix.fix)") + alike + place)
        if let alternative = fix.alternative {
          let place = alternative.location.map { " — \($0.file):\($0.line)" } ?? ""
          lines.append("  or \(alternative.fix), \(alternative.condition)\(place)")
        }
      }
      if let libraryLoop = section.libraryLoop {
        if !cycle.fixPlan.isEmpty { lines.append("") }
        lines.append(libraryLoop)
      }
    }
    if let maxCycles = limits.maxCycles, groups.count > maxCycles {
      let hidden = groups.dropFirst(maxCycles).reduce(0) { $0 + $1.count }
      lines += ["", "… \(Self.count(hidden, "more cycle")) not shown"]
    }
    if !graph.danglingReferences.isEmpty {
      lines.append("")
      for dangling in graph.danglingReferences {
        lines.append(
          "dangling unowned reference: \(graph.storage.shortTypeName(dangling.holder)).\(dangling.label) points to an "
            + "object that was already deinitialized; reading it will crash")
      }
    }
    let notes = noteLines()
    if !notes.isEmpty {
      lines.append("")
      lines += notes
    }
    return lines.joined(separator: "\n")
  }

  /// `note: …` for each note of the user's objects, once each, then one short line per library
  /// for the notes in its own storage.
  private func noteLines() -> [String] {
    var seen: Set<String> = []
    let own = graph.walkNotes.filter {
      $0.kind != .truncated && !graph.isLibraryNote($0) && seen.insert($0.description).inserted
    }
    return own.map { "note: \($0.description)" } + graph.libraryNoteLines(graph.walkNotes)
  }

  /// The sections of `groups` (of ``alikeGroups(_:)``).
  func sections(_ groups: some Sequence<[Int]>) -> [ReportSection] {
    groups.map { group in
      let cycle = graph.cycles[group[0]]
      let fixes = Self.edits(of: cycle)
      let shown = cycle.fixPlan.count < fixes ? " (the first \(cycle.fixPlan.count) shown)" : ""
      let weaken = fixes > 1 ? "; \(Self.toWeaken(edits: fixes, references: cycle.referencesToWeaken))" : ""
      var heading: String?
      if group.count > 1 {
        heading =
          "cycles \(Self.numbers(group)) of \(graph.cycles.count), \(group.count) alike "
          + "(\(memberSummary(cycle, each: true)))\(weaken)\(shown); the first:"
      } else if graph.cycles.count > 1 {
        heading = "cycle \(group[0] + 1) of \(graph.cycles.count) (\(memberSummary(cycle)))\(weaken)\(shown):"
      } else if fixes > 1 {
        heading =
          "\(Self.toWeaken(edits: fixes, references: cycle.referencesToWeaken)), one loop each\(shown):"
      }
      return ReportSection(
        cycle: cycle, cycleCount: group.count, heading: heading, edits: fixes,
        libraryLoop: cycle.libraryLoopMembers.isEmpty ? nil : libraryLoopLine(cycle.libraryLoopMembers))
    }
  }

  /// The cycles' indices, grouped: cycles whose fix plans say the same fixes (the same references
  /// of the same types, as 23 rings of two nodes each) form one group, said once; each group in
  /// the order of its first cycle.
  static func alikeGroups(_ cycles: [Cycle]) -> [[Int]] {
    var groups: [[Int]] = []
    var groupOf: [[String]: Int] = [:]
    for (index, cycle) in cycles.enumerated() {
      let fixes = cycle.fixPlan.map(\.fix)
      // A plan that names no fix (a library's own loop) is never alike another.
      if !fixes.isEmpty, let group = groupOf[fixes] {
        groups[group].append(index)
      } else {
        groupOf[fixes] = groups.count
        groups.append([index])
      }
    }
    return groups
  }

  /// `1–23`, or `1, 3 and 5`: cycle numbers from their indices (ascending).
  static func numbers(_ indices: [Int]) -> String {
    var runs: [String] = []
    var start = indices[0]
    var end = start
    for index in indices.dropFirst() + [Int.max] {
      if index == end + 1 {
        end = index
        continue
      }
      runs +=
        end == start
        ? ["\(start + 1)"] : end == start + 1 ? ["\(start + 1)", "\(end + 1)"] : ["\(start + 1)–\(end + 1)"]
      start = index
      end = index
    }
    return runs.count == 1
      ? runs[0] : runs.dropLast().joined(separator: ", ") + " and " + runs[runs.count - 1]
  }

  /// How many edits a cycle's plan is: one per break, and one per reference not described (a
  /// huge component's plan describes its first breaks only, each one reference).
  static func edits(of cycle: Cycle) -> Int {
    cycle.referencesToWeaken - cycle.fixPlan.reduce(0) { $0 + $1.editedReferenceCount - 1 }
  }

  /// `2 references to weaken`, or, when an edit weakens several references through one
  /// declaration, `23 fixes (46 references) to weaken`.
  static func toWeaken(edits: Int, references: Int) -> String {
    edits == references
      ? "\(count(references, "reference")) to weaken"
      : "\(count(edits, "fix", plural: "fixes")) (\(count(references, "reference"))) to weaken"
  }

  /// The report's first line (``ObjectGraph/summary()``).
  func summary() -> String {
    let rootName = graph.storage.shortTypeName(graph.root)
    guard !graph.cycles.isEmpty else { return "no retain cycle reachable from \(rootName)" }
    let objects = Set(graph.cycles.flatMap(\.members)).count
    let noun = graph.cycles.count == 1 ? "retain cycle" : "retain cycles"
    // Alike cycles share their fixes: one edit of a declaration or a closure breaks them all.
    let fixes = Self.alikeGroups(graph.cycles).reduce(0) { $0 + Self.edits(of: graph.cycles[$1[0]]) }
    let references = graph.cycles.reduce(0) { $0 + $1.referencesToWeaken }
    return "\(graph.cycles.count) \(noun) reachable from \(rootName) (\(Self.count(objects, "object"))); "
      + Self.toWeaken(edits: fixes, references: references)
  }

  /// `left to OpenCombine: 2 of its objects still hold each other (PassthroughSubject<Int, Never>,
  /// Conduit<…>): its own loops, not references of yours`.
  private func libraryLoopLine(_ members: [Node.ID]) -> String {
    let modules = Set(members.compactMap { TypeNames.module(ofNodeNamed: graph.storage.typeName($0)) })
      .sorted()
    let owner = modules.isEmpty ? "the libraries" : modules.joined(separator: " and ")
    let names = members.prefix(3).map { graph.displayName($0) }.joined(separator: ", ")
    let more = members.count > 3 ? ", +\(members.count - 3) more" : ""
    let their = modules.count > 1 ? "their" : "its"
    let verb = members.count == 1 ? "still holds itself" : "still hold each other"
    let objects = members.count == 1 ? "1 of \(their) objects" : "\(members.count) of \(their) objects"
    return "left to \(owner): \(objects) \(verb) (\(names)\(more)): "
      + "\(their) own \(members.count == 1 ? "loop" : "loops"), not references of yours"
  }

  private static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
    "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
  }

  private func memberSummary(_ cycle: Cycle, each: Bool = false) -> String {
    let names = cycle.members.prefix(4).map { graph.displayName($0) }
    let more = cycle.members.count > 4 ? ", +\(cycle.members.count - 4) more" : ""
    return
      "\(Self.count(cycle.members.count, "object"))\(each ? " each" : ""): \(names.joined(separator: ", "))\(more)"
  }
}
